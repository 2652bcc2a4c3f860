import { Caller, paginate, paginateCursor } from './core.js';
import {
  AuthenticationError,
  ConflictError,
  errorFor,
  GatewayApiError,
  GatewayError,
  IdempotencyConflictError,
  NotFoundError,
  PermissionError,
  ProviderError,
  RateLimitError,
  ServerError,
  ValidationError,
} from './errors.js';
import * as sdk from './index.js';

const purchaseBody = (code: string) => ({ success: false, message: code, error: { code } });
const payoutBody = (code: string) => ({ success: false, code, message: code, errors: {} });

describe('errorFor: one class per kind', () => {
  it.each([
    [401, purchaseBody('UNAUTHENTICATED'), AuthenticationError],
    [403, payoutBody('FORBIDDEN'), PermissionError],
    [404, purchaseBody('NOT_FOUND'), NotFoundError],
    [422, payoutBody('VALIDATION_FAILED'), ValidationError],
    [415, purchaseBody('UNSUPPORTED_MEDIA_TYPE'), ValidationError],
    [409, purchaseBody('IDEMPOTENCY_CONFLICT'), IdempotencyConflictError],
    [409, payoutBody('REFERENCE_CONFLICT'), IdempotencyConflictError],
    [409, purchaseBody('QUOTE_ALREADY_USED'), ConflictError],
    [429, payoutBody('API_RATE_LIMITED'), RateLimitError],
    [422, payoutBody('PROVIDER_REJECTED'), ProviderError],
    [502, purchaseBody('PROVIDER_HTTP_ERROR'), ProviderError],
    [500, purchaseBody('INTERNAL_ERROR'), ServerError],
    [503, 'upstream down', ServerError],
    [422, payoutBody('INSUFFICIENT_FUNDS'), GatewayApiError],
  ])('%i %j is a %p', (status, body, Kind) => {
    const error = errorFor(status, body, new Headers({ 'retry-after': '7', 'x-request-id': 'r-1' }), 'op');
    expect(error).toBeInstanceOf(Kind);
    expect(error).toBeInstanceOf(GatewayApiError);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.name).toBe(Kind.brand);
    expect(error).toMatchObject({ status, operation: 'op', requestId: 'r-1' });
  });

  it('RateLimitError carries retryAfter; a ConflictError is not an IdempotencyConflictError', () => {
    expect((errorFor(429, payoutBody('RATE_LIMITED'), new Headers({ 'retry-after': '30' })) as RateLimitError).retryAfter).toBe(30);
    expect(errorFor(409, purchaseBody('QUOTE_ALREADY_USED'), new Headers())).not.toBeInstanceOf(IdempotencyConflictError);
    expect(errorFor(401, {}, new Headers())).not.toBeInstanceOf(ServerError);
  });
});

describe('Caller: per-request options and response metadata', () => {
  it('sends the idempotency key and headers, answers the value or withResponse', async () => {
    const seen: Request[] = [];
    const caller = new Caller(
      {
        baseUrl: 'http://gw.test',
        token: 't',
        fetch: async (request) => {
          seen.push(request);
          return new Response(JSON.stringify({ success: true, data: { ok: 1 } }), { headers: { 'x-request-id': 'req-9', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'idempotent-replayed': 'true' } });
        },
      },
      [],
    );
    const send = (init: { headers?: Record<string, string>; signal?: AbortSignal; fetch: (request: Request) => Promise<Response> }) =>
      init.fetch(new Request('http://gw.test/x', { method: 'POST', headers: init.headers, signal: init.signal })).then(async (response) => ({ data: (await response.json()) as { data: { ok: number } }, response }));
    expect(await caller.call('op', send, { idempotencyKey: 'k-1', headers: { 'X-Trace': 'a' } })).toEqual({ ok: 1 });
    expect(seen[0].headers.get('idempotency-key')).toBe('k-1');
    expect(seen[0].headers.get('x-trace')).toBe('a');
    const { data, response } = await caller.call('op', send).withResponse();
    expect(data).toEqual({ ok: 1 });
    expect(response).toMatchObject({ status: 200, requestId: 'req-9', rateLimit: { limit: 60, remaining: 59 }, replayed: true });
  });
});

describe('paginate', () => {
  it('walks pages with metadata, and plain arrays until a short page', async () => {
    const meta = paginate(async (page) => ({ items: [page * 10, page * 10 + 1], page, last_page: 3 }));
    expect(await meta.toArray()).toEqual([10, 11, 20, 21, 30, 31]);
    const calls: number[] = [];
    const plain = paginate(async (page) => {
      calls.push(page);
      return page < 3 ? ['a', 'b'] : ['c'];
    }, 2);
    expect(await plain.toArray()).toEqual(['a', 'b', 'a', 'b', 'c']);
    expect(calls).toEqual([1, 2, 3]);
    expect(await paginate(async () => [1, 2, 3]).toArray({ limit: 2 })).toEqual([1, 2]);
  });

  it('follows next_cursor until null, sending each page the previous page\'s cursor', async () => {
    const cursors: Array<string | undefined> = [];
    const pages: Record<string, { items: number[]; next_cursor: string | null }> = { start: { items: [1, 2], next_cursor: 'c1' }, c1: { items: [3], next_cursor: 'c2' }, c2: { items: [], next_cursor: null } };
    const all = paginateCursor(async (cursor) => {
      cursors.push(cursor);
      return pages[cursor ?? 'start'];
    });
    expect(await all.toArray()).toEqual([1, 2, 3]);
    expect(cursors).toEqual([undefined, 'c1', 'c2']);
  });
});

describe('Caller: an error through withResponse() only', () => {
  it('rejects withResponse() with the error class, and leaves no unhandled rejection behind', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const caller = new Caller({ baseUrl: 'http://gw.test', token: 't', retry: false, fetch: async () => new Response('{"code":"NOT_FOUND"}', { status: 404 }) }, []);
      const send = (init: { fetch: (request: Request) => Promise<Response> }) =>
        init.fetch(new Request('http://gw.test/x')).then(async (response) => ({ error: await response.json(), response }));
      await expect(caller.call('op', send).withResponse()).rejects.toBeInstanceOf(NotFoundError);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('brands', () => {
  it('gives every error class the SDK exports a brand of its own: the name it is exported under', () => {
    const errorClasses = Object.entries(sdk).filter((entry): entry is [string, typeof GatewayError] => entry[1] === GatewayError || (typeof entry[1] === 'function' && entry[1].prototype instanceof GatewayError));
    expect(errorClasses.map(([name]) => name)).toEqual(expect.arrayContaining(['GatewayError', 'RateLimitError', 'WaitTimeoutError', 'WebhookSignatureError']));
    for (const [name, Kind] of errorClasses) expect([name, Object.hasOwn(Kind, 'brand') ? Kind.brand : 'no brand of its own']).toEqual([name, name]);
  });
});
