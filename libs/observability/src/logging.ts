import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Secret-bearing keys, redacted wherever they appear up to four levels deep. */
const SECRET_KEYS = [
  'authorization',
  'cookie',
  'x-api-key',
  'token',
  'api_key',
  'apiKey',
  'secret',
  'password',
  'pin',
  'serial',
  'activation_code',
  'activationCode',
  'qr_code',
  'ciphertext',
  'callback_url',
  'callbackUrl',
];

export const REDACTED_PATHS = SECRET_KEYS.flatMap((key) => {
  const safe = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  const dot = safe.startsWith('[') ? '' : '.';
  return [`${safe}`, `*${dot}${safe}`, `*.*${dot}${safe}`, `*.*.*${dot}${safe}`];
});

/** Query parameters that carry credentials when a client puts them in the URL (the guard refuses them, the log must not keep them). */
const SECRET_QUERY_PARAMETER = /([?&](?:access_token|token|api_key|apikey|secret|password)=)[^&#]*/gi;

/** The provider callback path carries its secret as the last segment; a client may also put a token in the query string. */
export function redactUrl(url: string | undefined): string | undefined {
  return url?.replace(/(\/provider\/callback\/)[^/?#]*/i, '$1[REDACTED]').replace(SECRET_QUERY_PARAMETER, '$1[REDACTED]');
}

/**
 * Accepts a caller's X-Request-Id when it is safe to log, otherwise mints one, and echoes it
 * on the response so a vendor can quote it to support.
 */
export function requestIdFor(request: IncomingMessage, response: ServerResponse): string {
  const offered = request.headers['x-request-id'];
  const id = typeof offered === 'string' && REQUEST_ID_PATTERN.test(offered) ? offered : randomUUID();
  response.setHeader('X-Request-Id', id);
  return id;
}

export function buildLoggerParams(service: string, level: string): Params {
  return {
    pinoHttp: {
      level,
      base: { service },
      genReqId: requestIdFor,
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      customLogLevel: (_request, response, error) => (error || response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'warn' : 'info'),
      // Health probes and scrapes would drown the request log.
      autoLogging: { ignore: (request) => /^\/(health|metrics)/.test(request.url ?? '') },
      serializers: {
        req: (request: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({
          id: request.id,
          method: request.method,
          url: redactUrl(request.url),
          userAgent: request.headers?.['user-agent'],
        }),
        res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
      },
    },
  };
}
