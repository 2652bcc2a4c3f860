import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isBlockedAddress, resolveDeliverable, systemHostResolver, WebhookUrlRefusedError, type WebhookHostResolver } from './webhook-url-guard.js';

export interface SendResult {
  httpStatus: number | null;
  /** Short, secret-free reason for a failed attempt (never the response body). */
  error: string | null;
  durationMs: number;
}

export interface SendOptions {
  production: boolean;
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  /** How the host is resolved (the system resolver unless injected, e.g. by a test). */
  resolve?: WebhookHostResolver;
}

/**
 * One POST of a signed event. The host is resolved and checked here, at delivery time, and the
 * socket connects to exactly the checked address (the request's lookup returns it), so a DNS
 * answer that changed since registration cannot reach a private network. Redirects are not
 * followed (a 3xx is a failed attempt). The response body is read and discarded, never stored.
 */
export async function sendWebhook(rawUrl: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  const started = Date.now();
  const done = (httpStatus: number | null, error: string | null): SendResult => ({ httpStatus, error, durationMs: Date.now() - started });
  const url = new URL(rawUrl);
  let addresses: { address: string; family: number }[];
  try {
    addresses = await resolveDeliverable(url.hostname, options.production, options.resolve ?? systemHostResolver);
  } catch (error) {
    return done(null, error instanceof WebhookUrlRefusedError ? `refused: ${error.message}` : 'host does not resolve');
  }
  const pinned = addresses[0];
  // Connect time: the socket can only reach this checked address (checked once more here).
  if (options.production && isBlockedAddress(pinned.address)) return done(null, 'refused: host resolves to a private, loopback or link-local address');
  const pinnedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const requestOptions: RequestOptions = {
    method: 'POST',
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'User-Agent': 'za-payments-gateway-webhooks/1' },
    lookup: pinnedLookup,
    agent: false,
  };
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (httpStatus: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(responseTimer);
      resolve(done(httpStatus, error));
    };
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(requestOptions, (response) => {
      response.on('data', () => undefined);
      response.on('end', () => finish(response.statusCode ?? null, null));
      response.on('error', () => finish(response.statusCode ?? null, 'response interrupted'));
    });
    const connectTimer = setTimeout(() => {
      req.destroy();
      finish(null, `connect timeout after ${options.connectTimeoutMs} ms`);
    }, options.connectTimeoutMs);
    let responseTimer: NodeJS.Timeout | undefined;
    req.on('socket', (socket) => {
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
        clearTimeout(connectTimer);
        responseTimer = setTimeout(() => {
          req.destroy();
          finish(null, `no response within ${options.responseTimeoutMs} ms`);
        }, options.responseTimeoutMs);
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => finish(null, `connection failed (${error.code ?? 'error'})`));
    req.end(body);
  });
}
