import createClient, { type Client } from 'openapi-fetch';
import { GatewayApiError, WaitTimeoutError } from './errors.js';
import { retryingFetch, sleep, type ClientOptions } from './transport.js';

/**
 * How a gateway's base URL relates to its paths (`servers[0].url` of its `/docs-json`):
 * - `'versioned'` (purchase): the base address is the origin followed by `/api/v1` and every
 *   path is relative to it. A bare origin is accepted too and `/api/v1` is appended.
 * - `'origin'` (payout): the base URL is the origin and every path starts with `/api/v1`.
 */
export type BaseUrlRule = 'versioned' | 'origin';

const VERSION_PREFIX = '/api/v1';

/** The base URL the generated paths are appended to, or an error naming the rule. */
export function resolveBaseUrl(baseUrl: string, rule: BaseUrlRule): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  const origin = /^https?:\/\/[^/]+$/.test(trimmed);
  if (rule === 'origin') {
    // A base URL ending in /api/v1 would call /api/v1/api/v1/….
    if (!origin) throw new Error(`baseUrl must be the payout gateway origin (e.g. https://payout.example.com), not ${JSON.stringify(baseUrl)}: every payout path already starts with /api/v1`);
    return trimmed;
  }
  if (origin) return `${trimmed}${VERSION_PREFIX}`;
  if (/^https?:\/\/[^/]+\/api\/v1$/.test(trimmed)) return trimmed;
  throw new Error(`baseUrl must be the purchase gateway base address (e.g. https://purchase.example.com/api/v1), not ${JSON.stringify(baseUrl)}`);
}

/** The generated, typed openapi-fetch client for a gateway, with bearer auth and the retry policy. */
export function createApi<Paths extends object>(options: ClientOptions, rule: BaseUrlRule, referenceKeyedPaths: readonly string[] = []): Client<Paths> {
  return createClient<Paths>({
    baseUrl: resolveBaseUrl(options.baseUrl, rule),
    headers: { ...options.headers, Authorization: `Bearer ${options.token}` },
    fetch: retryingFetch(options, referenceKeyedPaths),
  });
}

interface ApiResult<Body> {
  data?: Body;
  error?: unknown;
  response: Response;
}

/** The success envelope's `data`, or a GatewayApiError for any other answer. */
export async function unwrap<Body extends { data: unknown }, Code extends string>(pending: Promise<ApiResult<Body>>): Promise<{ data: Body['data']; response: Response }> {
  const { data, error, response } = await pending;
  if (!response.ok || data === undefined) throw new GatewayApiError<Code>(response.status, error, response.headers);
  return { data: data.data, response };
}

export const replayed = (response: Response) => response.headers.get('idempotent-replayed') === 'true';

/** A page as the purchase gateway lists them. */
export interface Page<Item> {
  items: Item[];
  page: number;
  last_page: number;
}

/** Every item of every page, fetching the next page only when the caller gets there. */
export async function* eachItem<Item>(fetchPage: (page: number) => Promise<Page<Item>>): AsyncGenerator<Item, void, undefined> {
  for (let page = 1; ; page++) {
    const current = await fetchPage(page);
    yield* current.items;
    if (current.page >= current.last_page || current.items.length === 0) return;
  }
}

export interface WaitOptions {
  /** Give up (WaitTimeoutError) after this long. */
  timeoutMs?: number;
  /** First wait between reads, doubled after each read up to maxIntervalMs. */
  intervalMs?: number;
  maxIntervalMs?: number;
}

/** Reads until `isFinal`, on the contract's cadence: a first wait, then doubling up to a ceiling. */
export async function pollUntil<T>(read: () => Promise<T>, isFinal: (value: T) => boolean, options: WaitOptions, defaults: Required<WaitOptions>): Promise<T> {
  const { timeoutMs, intervalMs, maxIntervalMs } = { ...defaults, ...options };
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  for (let wait = intervalMs; !isFinal(value); wait = Math.min(wait * 2, maxIntervalMs)) {
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitTimeoutError(value, timeoutMs);
    await sleep(Math.min(wait, left));
    value = await read();
  }
  return value;
}
