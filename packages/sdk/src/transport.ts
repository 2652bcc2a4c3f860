import { GatewayConnectionError, GatewayTimeoutError, retryAfterMs } from './errors.js';

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
  /**
   * Longest wait for an answer to one attempt, in ms (default 30 000; `0` for none). A request that
   * gets no answer in time is retried when it is safe to repeat, else it throws GatewayTimeoutError.
   */
  timeoutMs?: number;
}

/** Options of one call: they override the client's for that call only. */
export interface RequestOptions {
  /** Extra headers for this request. */
  headers?: Record<string, string>;
  /** Cancels the request (and any wait between retries): it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** This call's timeout per attempt, in ms (`0` for none). */
  timeoutMs?: number;
  /**
   * The `Idempotency-Key` header. `createTransaction` makes one when not given; on any other POST
   * it marks the request as safe to resend after a 5xx or a network error.
   */
  idempotencyKey?: string;
  /** This call's retry policy (`false`: send once). */
  retry?: RetryOptions | false;
}

export const DEFAULT_TIMEOUT_MS = 30_000;


const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 60_000 };
const RETRYABLE_STATUS = new Set([500, 502, 503, 504]);

type FetchOptions = Pick<ClientOptions, 'retry' | 'onRetry' | 'fetch' | 'timeoutMs'>;

/**
 * A fetch that retries only what cannot do anything twice:
 * - 429 for every request: the gateways' rate limiter refuses before any handler runs, so the
 *   refused request did nothing; it waits exactly `Retry-After`.
 * - 5xx, timeouts and network errors only when the request is safe to repeat: a GET, a request
 *   that carries an `Idempotency-Key` (a purchase), or a POST whose body reference is its
 *   idempotency key (`referenceKeyedPaths`: payouts and batches). Any other POST may have been
 *   carried out before the failure, so it is handed back to the caller, never sent again.
 *
 * Each attempt gets `timeoutMs` to answer (GatewayTimeoutError); the request's own signal cancels
 * the attempt and any wait between attempts (rejecting with the signal's reason); a network
 * failure is a GatewayConnectionError.
 */
export function retryingFetch(options: FetchOptions, referenceKeyedPaths: readonly string[]): (input: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const policy = options.retry === false ? { ...DEFAULT_RETRY, maxRetries: 0 } : { ...DEFAULT_RETRY, ...options.retry };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const safe = (request: Request) =>
    request.method === 'GET' ||
    request.method === 'HEAD' ||
    request.headers.has('idempotency-key') ||
    (request.method === 'POST' && referenceKeyedPaths.some((path) => new URL(request.url).pathname.endsWith(path)));

  return async (request: Request) => {
    const caller = request.signal;
    for (let retry = 1; ; retry++) {
      caller.throwIfAborted();
      const last = retry > policy.maxRetries;
      const timer = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
      // A Request body can be read once: every attempt sends a copy, the original stays unread.
      const attempt = new Request(request.clone(), { signal: timer ? AbortSignal.any([caller, timer]) : caller });
      let response: Response;
      try {
        response = await send(attempt);
      } catch (error) {
        if (caller.aborted) throw caller.reason;
        const failure = timer?.aborted ? new GatewayTimeoutError(timeoutMs, request.method, request.url) : new GatewayConnectionError(request.method, request.url, error);
        if (last || !safe(request)) throw failure;
        await pause(retry, backoff(policy, retry), request, options, { error: failure });
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
  await sleep(delayMs, request.signal);
}

/** Waits `ms`; rejects with the signal's reason as soon as it aborts. */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
