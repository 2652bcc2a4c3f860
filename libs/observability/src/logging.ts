import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { symbols, type Logger } from 'pino';
import { REQUEST_ID_PATTERN } from '#common';

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

/** The redaction's coverage written as pino redact paths: each key at the top level and three levels below. */
export const REDACTED_PATHS = SECRET_KEYS.flatMap((key) => {
  const safe = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  const dot = safe.startsWith('[') ? '' : '.';
  return [`${safe}`, `*${dot}${safe}`, `*.*${dot}${safe}`, `*.*.*${dot}${safe}`];
});

const SECRET_KEY_SET: ReadonlySet<string> = new Set(SECRET_KEYS);
const REDACTION_CENSOR = '[REDACTED]';
/** Levels of a log line searched for secret keys, the same coverage as REDACTED_PATHS. */
const REDACTION_LEVELS = 4;
/** Keys pino serializes (see the serializers below): their values are searched after serialization, not as raw requests and errors. */
const SERIALIZED_KEYS: ReadonlySet<string> = new Set(['req', 'res', 'err']);

/**
 * `value` with every secret key found within `levels` levels censored (array indices count as a
 * level, as `*` does in REDACTED_PATHS). Copy on write: the caller's objects are never mutated,
 * and a value holding no secret key comes back as the same reference, so an ordinary log line
 * costs one Set lookup per key. One walk against a Set replaces the 64 wildcard redact paths,
 * whose cloning walks cost 3-5 % of a gateway's CPU under load (docs/BENCHMARKS.md).
 */
function redactSecrets(value: unknown, levels = REDACTION_LEVELS, skip?: ReadonlySet<string>): unknown {
  if (levels <= 0 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const redacted = redactSecrets(value[index], levels - 1);
      if (redacted !== value[index]) (copy ??= value.slice())[index] = redacted;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const item = record[key];
    const redacted = SECRET_KEY_SET.has(key) ? REDACTION_CENSOR : skip?.has(key) ? item : redactSecrets(item, levels - 1);
    if (redacted !== item) (copy ??= Object.assign(Object.create(Object.getPrototypeOf(record) as object | null) as Record<string, unknown>, record))[key] = redacted;
  }
  return copy ?? value;
}

/** A log line's merged object or a child logger's bindings, before pino applies the serializers. */
const redactLine = <T extends object>(line: T): T => redactSecrets(line, REDACTION_LEVELS, SERIALIZED_KEYS) as T;
/** A serializer's output, the value of a top-level key: the three levels below it. */
const redactSerialized = <T>(value: T): T => redactSecrets(value, REDACTION_LEVELS - 1) as T;

/** A secret key written as a JSON key anywhere in a serialized text (the keys hold no pattern characters). */
const SECRET_JSON_KEY = new RegExp(`"(?:${SECRET_KEYS.join('|')})":`);

/**
 * pino applies formatters.bindings to the root logger's bindings only: a child's bindings are
 * serialized when it is created (pino-http makes one per request, binding `req`). This hook
 * reads them as serialized (`,"key":value,...`) and, only when a secret key name appears in
 * them, censors them as a log line; the usual child costs one regular expression test.
 */
function redactChildBindings(child: Logger): void {
  const holder = child as unknown as Record<symbol, unknown>;
  const serialized = holder[symbols.chindingsSym];
  if (typeof serialized !== 'string') throw new Error('pino keeps child bindings elsewhere: their redaction needs updating');
  if (!SECRET_JSON_KEY.test(serialized)) return;
  const bindings = JSON.parse(`{${serialized.slice(1)}}`) as Record<string, unknown>;
  holder[symbols.chindingsSym] = `,${JSON.stringify(redactSecrets(bindings)).slice(1, -1)}`;
}

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
      // Every line, the root's bindings and each child's; the serialized keys are searched by
      // their serializers below.
      formatters: { log: redactLine, bindings: redactLine },
      onChild: redactChildBindings,
      customLogLevel: (_request, response, error) => (error || response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'warn' : 'info'),
      // Health probes and scrapes would drown the request log.
      autoLogging: { ignore: (request) => /^\/(health|metrics)/.test(request.url ?? '') },
      serializers: {
        req: (request: { id: string; method: string; url: string; headers: Record<string, unknown> }) =>
          redactSerialized({ id: request.id, method: request.method, url: redactUrl(request.url), userAgent: request.headers?.['user-agent'] }),
        res: (response: { statusCode: number }) => redactSerialized({ statusCode: response.statusCode }),
        // pino-http hands this pino's serialized error (or the value itself when it is no Error).
        err: redactSerialized,
      },
    },
  };
}
