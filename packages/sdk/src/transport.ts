import { retryAfterMs } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** Backoff before the first retry of a 5xx or network error, doubled for each further one. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest computed backoff. Default 30 s. */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the 429/503 is thrown to the caller. Default 60 s. */
  maxRetryAfterMs?: number;
}

/** What `onRetry` is told before the client waits and sends the request again. */
export interface RetryEvent {
  /** 1 for the first retry. */
  retry: number;
  method: string;
  url: string;
  /** The status that caused the retry; undefined for a network error. */
  status?: number;
  error?: unknown;
  /** How long the client waits before the retry (`Retry-After` when the gateway sent one). */
  delayMs: number;
}

export interface ClientOptions {
  /**
   * `servers[0].url` of the gateway's `/docs-json`, the demo file's `base_url`: for the purchase
   * gateway its base address, the origin followed by `/api/v1` (e.g. `http://127.0.0.1:3000/api/v1`;
   * a bare origin is accepted too); for the payout gateway its origin (e.g. `http://127.0.0.1:3001`),
   * every payout path starting with `/api/v1` (docs/INTEGRATION.md).
   */
  baseUrl: string;
  /** Opaque bearer token (`gwt_test_…` / `gwt_live_…`). */
  token: string;
  /** Retry policy; `false` sends every request once. */
  retry?: RetryOptions | false;
  onRetry?: (event: RetryEvent) => void;
  /** A fetch implementation (default: the global fetch). */
  fetch?: (input: Request) => Promise<Response>;
  /** Extra headers on every request, e.g. a User-Agent. */
  headers?: Record<string, string>;
}

const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 60_000 };
const RETRYABLE_STATUS = new Set([500, 502, 503, 504]);

/**
 * A fetch that retries only what cannot do anything twice:
 * - 429 for every request: the gateways' rate limiter refuses before any handler runs, so the
 *   refused request did nothing; it waits exactly `Retry-After`.
 * - 5xx and network errors only when the request is safe to repeat: a GET, a POST that carries
 *   an `Idempotency-Key` (a purchase), or a POST whose body reference is its idempotency key
 *   (`referenceKeyedPaths`: payouts and batches). Any other POST may have been carried out before
 *   the failure, so it is handed back to the caller, never sent again.
 */
export function retryingFetch(options: Pick<ClientOptions, 'retry' | 'onRetry' | 'fetch'>, referenceKeyedPaths: readonly string[]): (input: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  if (options.retry === false) return send;
  const policy = { ...DEFAULT_RETRY, ...options.retry };
  const safe = (request: Request) =>
    request.method === 'GET' ||
    request.method === 'HEAD' ||
    request.headers.has('idempotency-key') ||
    (request.method === 'POST' && referenceKeyedPaths.some((path) => new URL(request.url).pathname.endsWith(path)));

  return async (request: Request) => {
    for (let retry = 1; ; retry++) {
      // A Request body can be read once: every attempt sends a copy, the original stays unread.
      const attempt = request.clone();
      const last = retry > policy.maxRetries;
      let response: Response;
      try {
        response = await send(attempt);
      } catch (error) {
        if (last || !safe(request) || isAbort(error)) throw error;
        await pause(retry, backoff(policy, retry), request, options, { error });
        continue;
      }
      if (last) return response;
      const waitFor = retryAfterMs(response.headers.get('retry-after'));
      if (waitFor !== undefined && waitFor > policy.maxRetryAfterMs) return response;
      if (response.status === 429 || (RETRYABLE_STATUS.has(response.status) && safe(request))) {
        // Free the connection of the answer we are not going to read; not awaited, since a
        // cancel can wait on other readers of the same stream (a cloned or teed body).
        response.body?.cancel().catch(() => undefined);
        await pause(retry, waitFor ?? backoff(policy, retry), request, options, { status: response.status });
        continue;
      }
      return response;
    }
  };
}

function backoff(policy: Required<RetryOptions>, retry: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  // Jitter: clients that failed together do not all come back at the same instant.
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

async function pause(retry: number, delayMs: number, request: Request, options: Pick<ClientOptions, 'onRetry'>, cause: { status?: number; error?: unknown }): Promise<void> {
  options.onRetry?.({ retry, method: request.method, url: request.url, delayMs, ...cause });
  await sleep(delayMs);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const isAbort = (error: unknown) => error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
