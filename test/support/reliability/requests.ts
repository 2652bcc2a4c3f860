import { randomUUID } from 'node:crypto';
import { PRODUCTS } from '../purchase-stack.js';

/** Plain fetch against a listening app, so bursts really are concurrent clients on sockets. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  /** Milliseconds from send to the full body. */
  elapsedMs: number;
}

export interface Call {
  method?: string;
  path: string;
  token?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Sent as is (malformed JSON, huge bodies). */
  rawBody?: string | Buffer;
  timeoutMs?: number;
}

export async function call(baseUrl: string, { method = 'GET', path, token, headers = {}, body, rawBody, timeoutMs = 30_000 }: Call): Promise<HttpAnswer> {
  const started = performance.now();
  const payload = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: payload,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : null;
  } catch {
    // Left as text: the envelope checks report it.
  }
  return { status: response.status, headers: response.headers, body: parsed, elapsedMs: performance.now() - started };
}

/** A call that may fail at the socket (the server died or was cut off): the error instead of an answer. */
export async function attempt(baseUrl: string, request: Call): Promise<HttpAnswer | { error: string; elapsedMs: number }> {
  const started = performance.now();
  try {
    return await call(baseUrl, request);
  } catch (error) {
    return { error: (error as Error).message, elapsedMs: performance.now() - started };
  }
}

export const isAnswer = (value: HttpAnswer | { error: string }): value is HttpAnswer => 'status' in value;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const dataOf = (answer: HttpAnswer): any => (answer.body as { data?: unknown }).data;

export const uniqueKey = (label: string) => `${label}-${randomUUID()}`;

/** A fixed Vodacom airtime quote body; the last two digits pick the sandbox outcome. */
export function airtimeQuote(suffix = '55', product: number = PRODUCTS.fixedAirtime) {
  return { product_id: product, credit_party_identifier: { mobile_number: `278212${String(Math.floor(Math.random() * 1e3)).padStart(3, '0')}${suffix}` } };
}

export async function createQuote(purchaseUrl: string, token: string, body: Record<string, unknown> = airtimeQuote()): Promise<{ id: string; charge_minor: number }> {
  const answer = await call(purchaseUrl, { method: 'POST', path: '/api/v1/quotes', token, body });
  if (answer.status !== 201) throw new Error(`quote failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return dataOf(answer);
}

export function buy(purchaseUrl: string, token: string, quoteId: string, key = uniqueKey('key'), reference = uniqueKey('ref')) {
  return call(purchaseUrl, { method: 'POST', path: '/api/v1/transactions', token, headers: { 'idempotency-key': key }, body: { quote_id: quoteId, reference } });
}
