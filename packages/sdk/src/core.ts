import { errorFor, responseMeta, WaitTimeoutError, type ResponseMeta } from './errors.js';
import { Http, type SendResult } from './http.js';
import { retryingFetch, sleep, type ClientOptions, type RequestOptions } from './transport.js';

/**
 * How a gateway's base URL relates to its paths (`servers[0].url` of its `/docs-json`):
 * - `'versioned'` (purchase): the base address is the origin followed by `/api/v1` and every
 *   path is relative to it. A bare origin is accepted too and `/api/v1` is appended.
 * - `'origin'` (payout): the base URL is the origin and every path starts with `/api/v1`.
 */
export type BaseUrlRule = 'versioned' | 'origin';

const VERSION_PREFIX = '/api/v1';

/** The base URL the generated paths are appended to, or an error naming the rule. */
export function resolveBaseUrl(baseUrl: unknown, rule: BaseUrlRule): string {
  const gateway = rule === 'origin' ? 'payout' : 'purchase';
  const example = rule === 'origin' ? 'https://payout.example.com' : 'https://purchase.example.com/api/v1';
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
    throw new TypeError(`baseUrl is required: the ${gateway} gateway's base URL, servers[0].url of its /docs-json (e.g. ${example}); got ${baseUrl === undefined ? 'undefined (is the environment variable set?)' : JSON.stringify(baseUrl)}`);
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl ${JSON.stringify(baseUrl)} is not an absolute URL: give the ${gateway} gateway's base URL with its scheme (e.g. ${example})`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`baseUrl ${JSON.stringify(baseUrl)} must use http: or https: (e.g. ${example})`);
  if (url.search || url.hash || url.username || url.password) throw new TypeError(`baseUrl ${JSON.stringify(baseUrl)} must not carry a query, fragment or credentials (e.g. ${example}); the token goes in the token option`);
  const trimmed = baseUrl.trim().replace(/\/+$/, '');
  const origin = /^https?:\/\/[^/]+$/.test(trimmed);
  if (rule === 'origin') {
    // A base URL ending in /api/v1 would call /api/v1/api/v1/….
    if (!origin) throw new TypeError(`baseUrl must be the payout gateway origin (e.g. https://payout.example.com), not ${JSON.stringify(baseUrl)}: every payout path already starts with /api/v1`);
    return trimmed;
  }
  if (origin) return `${trimmed}${VERSION_PREFIX}`;
  if (/^https?:\/\/[^/]+\/api\/v1$/.test(trimmed)) return trimmed;
  throw new TypeError(`baseUrl must be the purchase gateway base address (e.g. https://purchase.example.com/api/v1), not ${JSON.stringify(baseUrl)}`);
}

/** The HTTP layer of a gateway client: base URL checked, bearer auth on every request. */
export function createHttp(options: ClientOptions, rule: BaseUrlRule): Http {
  if (typeof options?.token !== 'string' || options.token === '') throw new TypeError('token is required: the gateway bearer token (gwt_test_… or gwt_live_…)');
  return new Http(resolveBaseUrl(options.baseUrl, rule), { ...options.headers, Authorization: `Bearer ${options.token}` });
}

type ApiResult<Body> = SendResult<Body>;

/** A call's value together with what the gateway answered. */
export interface WithResponse<T> {
  data: T;
  response: ResponseMeta;
}

/**
 * What every method returns: a Promise of the value, as simple as it looks, plus
 * `.withResponse()` for the same call's value and response metadata (request id, rate limit,
 * replayed). The request is sent once, whichever you await.
 */
export type ApiPromise<T> = Promise<T> & { withResponse(): Promise<WithResponse<T>> };

/** The init that carries one call's options into the HTTP layer. */
export type CallInit = {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  fetch: (input: Request) => Promise<Response>;
};

/** Sends the calls of one client: per-request options layered over the client's. */
export class Caller {
  private readonly shared: (input: Request) => Promise<Response>;

  constructor(
    private readonly options: ClientOptions,
    private readonly referenceKeyedPaths: readonly string[],
  ) {
    this.shared = retryingFetch(options, referenceKeyedPaths);
  }

  init(request: RequestOptions = {}): CallInit {
    const headers: Record<string, string> = { ...request.headers };
    if (request.idempotencyKey !== undefined) headers['Idempotency-Key'] = request.idempotencyKey;
    const custom = request.timeoutMs !== undefined || request.retry !== undefined;
    return {
      headers,
      signal: request.signal,
      fetch: custom
        ? retryingFetch({ ...this.options, timeoutMs: request.timeoutMs ?? this.options.timeoutMs, retry: request.retry ?? this.options.retry }, this.referenceKeyedPaths)
        : this.shared,
    };
  }

  /** Runs one operation: the envelope's `data` on success, the error class of the answer otherwise. */
  call<Data, Out = Data>(operation: string, send: (init: CallInit) => Promise<ApiResult<{ data: Data }>>, request?: RequestOptions, map?: (data: Data, response: Response) => Out): ApiPromise<Out> {
    const full = (async (): Promise<WithResponse<Out>> => {
      const { data, error, response } = await send(this.init(request));
      if (!response.ok || data === undefined) throw errorFor(response.status, error, response.headers, operation, response);
      return { data: map ? map(data.data, response) : (data.data as unknown as Out), response: responseMeta(response) };
    })();
    const value = full.then((result) => result.data);
    // Both marked handled here, so that awaiting only one of the two (the value, or withResponse())
    // never reports an unhandled rejection; whichever is awaited still rejects with the error.
    full.catch(() => undefined);
    value.catch(() => undefined);
    return Object.assign(value, { withResponse: () => full });
  }
}

/** A page as the purchase gateway lists them. */
export interface Page<Item> {
  items: Item[];
  page: number;
  last_page: number;
}

/**
 * An async iterator over every item of every page, fetching the next page only when the loop
 * gets there (`for await (const item of client.listX())`); `.toArray()` collects them all
 * (with a `limit`), `.pages()` yields whole pages.
 */
export interface AutoPaginated<Item> extends AsyncIterable<Item> {
  toArray(options?: { limit?: number }): Promise<Item[]>;
  pages(): AsyncIterable<Item[]>;
}

/** Pages with `page`/`last_page` metadata, or plain arrays (a page shorter than `perPage` is the last). */
export function paginate<Item>(fetchPage: (page: number) => Promise<Page<Item> | Item[]>, perPage?: number): AutoPaginated<Item> {
  async function* pages(): AsyncGenerator<Item[], void, undefined> {
    for (let page = 1; ; page++) {
      const current = await fetchPage(page);
      const items = Array.isArray(current) ? current : current.items;
      if (items.length > 0) yield items;
      if (items.length === 0) return;
      if (Array.isArray(current) ? perPage === undefined || items.length < perPage : current.page >= current.last_page) return;
    }
  }
  return autoPaginated(pages);
}

function autoPaginated<Item>(pages: () => AsyncGenerator<Item[], void, undefined>): AutoPaginated<Item> {
  async function* each(): AsyncGenerator<Item, void, undefined> {
    for await (const items of pages()) yield* items;
  }
  return {
    [Symbol.asyncIterator]: each,
    pages,
    async toArray({ limit = 10_000 } = {}) {
      const all: Item[] = [];
      for await (const item of each()) {
        if (all.length >= limit) break;
        all.push(item);
      }
      return all;
    },
  };
}

/** A cursor page (payout `GET /statement`, `/payouts`, `/batches`): follow `next_cursor` until null. */
export interface CursorPage<Item> {
  items: Item[];
  next_cursor: string | null;
}

/** Cursor pages as one async iterator: the next page is fetched with the last page's `next_cursor`, only when the loop gets there. */
export function paginateCursor<Item>(fetchPage: (cursor: string | undefined) => Promise<CursorPage<Item>>): AutoPaginated<Item> {
  async function* pages(): AsyncGenerator<Item[], void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const current = await fetchPage(cursor);
      if (current.items.length > 0) yield current.items;
      if (current.next_cursor === null) return;
      cursor = current.next_cursor;
    }
  }
  return autoPaginated(pages);
}

/** Every item of every page, fetching the next page only when the caller gets there. */
export async function* eachItem<Item>(fetchPage: (page: number) => Promise<Page<Item>>): AsyncGenerator<Item, void, undefined> {
  yield* paginate(fetchPage);
}

export interface WaitOptions {
  /** Give up (WaitTimeoutError) after this long. */
  timeoutMs?: number;
  /** First wait between reads, doubled after each read up to maxIntervalMs. */
  intervalMs?: number;
  maxIntervalMs?: number;
  /** Stops waiting (and any read in flight) when aborted. */
  signal?: AbortSignal;
}

/** Reads until `isFinal`, on the contract's cadence: a first wait, then doubling up to a ceiling. */
export async function pollUntil<T>(read: () => Promise<T>, isFinal: (value: T) => boolean, options: WaitOptions, defaults: Required<Omit<WaitOptions, 'signal'>>): Promise<T> {
  const { timeoutMs, intervalMs, maxIntervalMs } = { ...defaults, ...options };
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  for (let wait = intervalMs; !isFinal(value); wait = Math.min(wait * 2, maxIntervalMs)) {
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitTimeoutError(value, timeoutMs);
    await sleep(Math.min(wait, left), options.signal);
    value = await read();
  }
  return value;
}
