import { setTimeout as sleep } from 'node:timers/promises';
import { cashPayout, uniqueReference } from '../../payout/payout-requests.js';
import { airtimeQuote, attempt, dataOf, isAnswer, uniqueKey, type HttpAnswer } from './requests.js';

/** One request of generated traffic, with what it was and what came back. */
export interface TrafficRecord {
  kind: 'quote' | 'purchase' | 'payout' | 'batch' | 'read';
  at: number;
  elapsedMs: number;
  status?: number;
  code?: string;
  error?: string;
  /** For replays: the idempotency key and reference (purchases) or the request body (payouts, batches). */
  key?: string;
  reference?: string;
  quoteId?: string;
  body?: Record<string, unknown>;
  id?: string;
}

export interface TrafficTarget {
  purchaseUrl: string;
  payoutUrl: string;
  purchaseToken: string;
  payoutToken: string;
}

const codeOf = (answer: HttpAnswer): string | undefined => {
  const body = answer.body as { error?: { code?: string }; code?: string } | null;
  return body?.error?.code ?? body?.code;
};

function record(kind: TrafficRecord['kind'], started: number, result: HttpAnswer | { error: string; elapsedMs: number }, extra: Partial<TrafficRecord>): TrafficRecord {
  if (!isAnswer(result)) return { kind, at: started, elapsedMs: result.elapsedMs, error: result.error, ...extra };
  return { kind, at: started, elapsedMs: result.elapsedMs, status: result.status, code: codeOf(result), id: result.status < 300 ? dataOf(result)?.id : undefined, ...extra };
}

/** Quote then buy, each step recorded; the key and reference are kept for replays. */
export async function purchaseFlow(target: TrafficTarget, timeoutMs: number, records: TrafficRecord[]): Promise<void> {
  const started = Date.now();
  const quote = await attempt(target.purchaseUrl, { method: 'POST', path: '/api/v1/quotes', token: target.purchaseToken, body: airtimeQuote('55'), timeoutMs });
  records.push(record('quote', started, quote, {}));
  if (!isAnswer(quote) || quote.status !== 201) return;
  const quoteId = dataOf(quote).id as string;
  const key = uniqueKey('traffic-key');
  const reference = uniqueKey('traffic-ref');
  const bought = await attempt(target.purchaseUrl, {
    method: 'POST',
    path: '/api/v1/transactions',
    token: target.purchaseToken,
    headers: { 'idempotency-key': key },
    body: { quote_id: quoteId, reference },
    timeoutMs,
  });
  records.push(record('purchase', Date.now(), bought, { key, reference, quoteId }));
}

export async function payoutFlow(target: TrafficTarget, timeoutMs: number, records: TrafficRecord[]): Promise<void> {
  const body = cashPayout('55', { amount: '20.00' });
  const started = Date.now();
  const answer = await attempt(target.payoutUrl, { method: 'POST', path: '/api/v1/payouts', token: target.payoutToken, body, timeoutMs });
  records.push(record('payout', started, answer, { reference: body.reference, body }));
}

export async function batchFlow(target: TrafficTarget, timeoutMs: number, records: TrafficRecord[]): Promise<void> {
  const body = { reference: uniqueReference('traffic-batch'), payouts: [cashPayout('55', { amount: '20.00' }), cashPayout('55', { amount: '30.00' })] };
  const started = Date.now();
  const answer = await attempt(target.payoutUrl, { method: 'POST', path: '/api/v1/batches', token: target.payoutToken, body, timeoutMs });
  records.push(record('batch', started, answer, { reference: body.reference, body }));
}

export async function readFlow(target: TrafficTarget, timeoutMs: number, records: TrafficRecord[]): Promise<void> {
  const started = Date.now();
  const answer = await attempt(target.purchaseUrl, { path: '/api/v1/limits', token: target.purchaseToken, timeoutMs });
  records.push(record('read', started, answer, {}));
}

/**
 * Steady traffic until `stop()`: every `intervalMs` a purchase, a payout and a read, and every
 * fifth tick a two-item batch, none waiting for the previous one (a stuck request cannot slow
 * the load down, it only shows up in its own record).
 */
export function startTraffic(target: TrafficTarget, { intervalMs = 250, timeoutMs = 20_000 } = {}) {
  const records: TrafficRecord[] = [];
  const inFlight = new Set<Promise<void>>();
  let running = true;
  let tick = 0;
  const loop = (async () => {
    while (running) {
      const flows = [purchaseFlow(target, timeoutMs, records), payoutFlow(target, timeoutMs, records), readFlow(target, timeoutMs, records)];
      if (tick++ % 5 === 0) flows.push(batchFlow(target, timeoutMs, records));
      for (const flow of flows) {
        inFlight.add(flow);
        void flow.finally(() => inFlight.delete(flow));
      }
      await sleep(intervalMs);
    }
  })();
  return {
    records,
    async stop(): Promise<TrafficRecord[]> {
      running = false;
      await loop;
      await Promise.allSettled([...inFlight]);
      return records;
    },
  };
}

export function tally(records: readonly TrafficRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of records) {
    const key = `${entry.kind} ${entry.error ? 'socket-error' : `${entry.status}${entry.code ? ` ${entry.code}` : ''}`}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
