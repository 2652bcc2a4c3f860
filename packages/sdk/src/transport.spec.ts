import { eachItem, pollUntil } from './core.js';
import { GatewayApiError, retryAfterMs, WaitTimeoutError } from './errors.js';
import { retryingFetch, type RetryEvent } from './transport.js';

/** A fetch that answers from a script, one entry per call (a thrown Error is a network failure). */
function scripted(answers: Array<Response | Error>) {
  const calls: Request[] = [];
  const fetch = async (request: Request) => {
    calls.push(request);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    return answer.clone();
  };
  return { calls, fetch };
}

const status = (code: number, headers: Record<string, string> = {}) => new Response(JSON.stringify({ success: code < 400 }), { status: code, headers });
const FAST = { baseDelayMs: 1, maxDelayMs: 2 };
const post = (path: string, headers: Record<string, string> = {}) => new Request(`http://gw.test${path}`, { method: 'POST', body: '{"a":1}', headers });

describe('retryingFetch: only what cannot happen twice is sent twice', () => {
  it('retries a GET after a 503 and a network error', async () => {
    const { calls, fetch } = scripted([status(503), new TypeError('fetch failed'), status(200)]);
    const response = await retryingFetch({ fetch, retry: FAST }, [])(new Request('http://gw.test/api/v1/limits'));
    expect(response.status).toBe(200);
    expect(calls).toHaveLength(3);
  });

  it('never resends a POST without an idempotency key or reference after a 5xx or network error', async () => {
    const served = scripted([status(502), status(200)]);
    expect((await retryingFetch({ fetch: served.fetch, retry: FAST }, ['/api/v1/payouts'])(post('/api/v1/quotes'))).status).toBe(502);
    expect(served.calls).toHaveLength(1);
    const broken = scripted([new TypeError('fetch failed'), status(200)]);
    await expect(retryingFetch({ fetch: broken.fetch, retry: FAST }, [])(post('/api/v1/lookups/account'))).rejects.toThrow('fetch failed');
    expect(broken.calls).toHaveLength(1);
  });

  it('resends a POST with the same Idempotency-Key, or to a reference-keyed path, with the same body', async () => {
    const keyed = scripted([status(500), status(202)]);
    expect((await retryingFetch({ fetch: keyed.fetch, retry: FAST }, [])(post('/api/v1/transactions', { 'Idempotency-Key': 'k-1' }))).status).toBe(202);
    expect(keyed.calls.map((call) => call.headers.get('idempotency-key'))).toEqual(['k-1', 'k-1']);
    expect(await Promise.all(keyed.calls.map((call) => call.text()))).toEqual(['{"a":1}', '{"a":1}']);

    const byReference = scripted([new TypeError('fetch failed'), status(200)]);
    expect((await retryingFetch({ fetch: byReference.fetch, retry: FAST }, ['/api/v1/payouts'])(post('/api/v1/payouts'))).status).toBe(200);
    expect(byReference.calls).toHaveLength(2);
  });

  it('retries any 429, waiting Retry-After, and gives up when the wait is longer than allowed', async () => {
    const events: RetryEvent[] = [];
    const { calls, fetch } = scripted([status(429, { 'Retry-After': '1' }), status(201)]);
    const started = Date.now();
    expect((await retryingFetch({ fetch, retry: FAST, onRetry: (event) => events.push(event) }, [])(post('/api/v1/quotes'))).status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(calls).toHaveLength(2);
    expect(events).toEqual([expect.objectContaining({ retry: 1, method: 'POST', status: 429, delayMs: 1000 })]);

    const long = scripted([status(429, { 'Retry-After': '120' }), status(200)]);
    expect((await retryingFetch({ fetch: long.fetch, retry: { ...FAST, maxRetryAfterMs: 60_000 } }, [])(new Request('http://gw.test/x'))).status).toBe(429);
    expect(long.calls).toHaveLength(1);
  });

  it('stops after maxRetries and hands back the last answer; retry: false sends once', async () => {
    const { calls, fetch } = scripted([status(503)]);
    expect((await retryingFetch({ fetch, retry: { ...FAST, maxRetries: 2 } }, [])(new Request('http://gw.test/x'))).status).toBe(503);
    expect(calls).toHaveLength(3);
    const once = scripted([status(503)]);
    await retryingFetch({ fetch: once.fetch, retry: false }, [])(new Request('http://gw.test/x'));
    expect(once.calls).toHaveLength(1);
  });
});

describe('GatewayApiError reads both envelopes', () => {
  it('purchase: error.code, error.fields and extra fields', () => {
    const error = new GatewayApiError(
      422,
      { success: false, message: 'DAILY_CAP_EXCEEDED', error: { code: 'DAILY_CAP_EXCEEDED', remaining_minor: 1500, request_id: 'r-1' } },
      new Headers(),
    );
    expect(error).toMatchObject({ status: 422, code: 'DAILY_CAP_EXCEEDED', errors: {}, details: { remaining_minor: 1500 }, requestId: 'r-1' });
    const invalid = new GatewayApiError(422, { success: false, message: 'VALIDATION_FAILED', error: { code: 'VALIDATION_FAILED', fields: { reference: ['required'] } } }, new Headers({ 'X-Request-Id': 'h-1' }));
    expect(invalid).toMatchObject({ code: 'VALIDATION_FAILED', errors: { reference: ['required'] }, requestId: 'h-1' });
  });

  it('payout: code, errors, Retry-After; and a body that is no envelope', () => {
    const error = new GatewayApiError(429, { success: false, code: 'RATE_LIMITED', message: 'Too many requests', errors: {} }, new Headers({ 'Retry-After': '7' }));
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', errors: {}, retryAfterSeconds: 7, details: {} });
    expect(new GatewayApiError(502, '<html>bad gateway</html>', new Headers())).toMatchObject({ code: 'HTTP_502', errors: {} });
  });

  it('Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('paging and waiting', () => {
  it('yields every item of every page, fetching pages as it goes', async () => {
    const fetched: number[] = [];
    const pages = [['a', 'b'], ['c', 'd'], ['e']];
    const items: string[] = [];
    for await (const item of eachItem(async (page) => (fetched.push(page), { items: pages[page - 1], page, last_page: 3 }))) items.push(item);
    expect(items).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(fetched).toEqual([1, 2, 3]);
  });

  it('polls until final, and times out with the last value', async () => {
    let reads = 0;
    const value = await pollUntil(async () => ++reads, (n) => n === 3, {}, { timeoutMs: 1_000, intervalMs: 1, maxIntervalMs: 2 });
    expect(value).toBe(3);
    const timedOut = await pollUntil(async () => 'review', () => false, { timeoutMs: 30 }, { timeoutMs: 1_000, intervalMs: 5, maxIntervalMs: 10 }).catch((caught: unknown) => caught);
    expect(timedOut).toBeInstanceOf(WaitTimeoutError);
    expect(timedOut).toMatchObject({ last: 'review', timeoutMs: 30 });
  });
});

describe('retryingFetch: timeouts and AbortSignal', () => {
  const hanging = () => {
    const calls: Request[] = [];
    const fetch = (request: Request) =>
      new Promise<Response>((_resolve, reject) => {
        calls.push(request);
        request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
      });
    return { calls, fetch };
  };

  it('a hanging request ends with GatewayTimeoutError after the timeout, retried first when safe', async () => {
    const { calls, fetch } = hanging();
    const started = Date.now();
    await expect(retryingFetch({ fetch, timeoutMs: 50, retry: { ...FAST, maxRetries: 1 } }, [])(new Request('http://gw.test/api/v1/limits'))).rejects.toMatchObject({ name: 'GatewayTimeoutError', timeoutMs: 50 });
    expect(calls).toHaveLength(2);
    // Generous: the machine may be busy; a timeout that never fired would hang until Jest's own limit.
    expect(Date.now() - started).toBeLessThan(5_000);
    const post = hanging();
    await expect(retryingFetch({ fetch: post.fetch, timeoutMs: 50, retry: FAST }, [])(new Request('http://gw.test/api/v1/quotes', { method: 'POST', body: '{}' }))).rejects.toMatchObject({ name: 'GatewayTimeoutError' });
    expect(post.calls).toHaveLength(1);
  });

  it("the caller's signal aborts the request and the wait between retries, with the signal's reason", async () => {
    const { fetch } = hanging();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await expect(retryingFetch({ fetch, timeoutMs: 0 }, [])(new Request('http://gw.test/api/v1/limits', { signal: controller.signal }))).rejects.toMatchObject({ name: 'AbortError' });

    const throttled = scripted([status(429, { 'retry-after': '30' }), status(200)]);
    const waiting = new AbortController();
    setTimeout(() => waiting.abort(), 20);
    const started = Date.now();
    await expect(retryingFetch({ fetch: throttled.fetch }, [])(new Request('http://gw.test/api/v1/limits', { signal: waiting.signal }))).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(5_000); // not the 30 s Retry-After
  });
});
