import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '../support/purchase-stack.js';
import { FaultProxy } from '../support/reliability/fault-proxy.js';
import { envInt, percentile, reportFigures, seededRandom } from '../support/reliability/figures.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, attempt, call, createQuote, dataOf, isAnswer, buy } from '../support/reliability/requests.js';
import { startTraffic, tally, type TrafficRecord, type TrafficTarget } from '../support/reliability/traffic.js';
import type { TestVendor } from '../support/vendors.js';
import { cashPayout } from '../payout/payout-requests.js';

const REDIS_OUTAGE_MS = envInt('FAULT_REDIS_OUTAGE_MS', 30_000);
const PG_OUTAGE_MS = envInt('FAULT_PG_OUTAGE_MS', 5_000);
const PROVIDER_OUTAGE_MS = envInt('FAULT_PROVIDER_OUTAGE_MS', 3_000);
/** No request may take longer than this, whatever is broken. */
const ANSWER_BOUND_MS = 8_000;
/** Requests sent this soon after a Redis cut may still pass the limiter (the client has not yet seen the cut). */
const OUTAGE_GRACE_MS = 1_000;

const faults: Array<Record<string, unknown>> = [];

/** The apps in these stacks reach PostgreSQL, Redis or the provider through a FaultProxy; the machine's servers are never touched. */
afterAll(() => reportFigures('infrastructure-faults', { faults }));

/** Purchases and payouts of these vendors all reached an end state, each submitted once. */
async function expectSettledOnce(stack: ReliabilityStack, buyer: TestVendor, payer: TestVendor, timeoutMs = 45_000) {
  const purchases = await eventually(
    () => stack.sql<{ id: string; status: string }>(`SELECT id::text, status FROM purchase_transactions WHERE vendor_id = $1`, [buyer.vendor.id]),
    (rows) => rows.every((row) => ['completed', 'failed', 'reversed', 'review'].includes(row.status)),
    timeoutMs,
    250,
  );
  const payouts = await eventually(
    () => stack.sql<{ merchant_reference: string; status: string }>(`SELECT merchant_reference, status FROM payouts WHERE vendor_id = $1`, [payer.vendor.id]),
    (rows) => rows.every((row) => row.status !== 'pending'),
    timeoutMs,
    250,
  );
  const purchaseWitness = await Promise.all(purchases.map((row) => stack.witness('external_id', row.id)));
  const payoutWitness = await Promise.all(payouts.map((row) => stack.witness('merchant_reference', row.merchant_reference)));
  expect([...purchaseWitness, ...payoutWitness].filter((tally) => tally.count > 1)).toEqual([]);
  return { purchases, payouts, purchaseWitness, payoutWitness };
}

function expectBounded(records: readonly TrafficRecord[]) {
  expect(records.filter((entry) => entry.error !== undefined)).toEqual([]);
  expect(records.filter((entry) => entry.elapsedMs > ANSWER_BOUND_MS)).toEqual([]);
  expect(records.filter((entry) => (entry.status ?? 0) >= 500 && entry.status !== 503)).toEqual([]);
}

describe('Redis unreachable under traffic', () => {
  let stack: ReliabilityStack;
  let proxy: FaultProxy;
  let buyer: TestVendor;
  let payer: TestVendor;

  beforeAll(async () => {
    const redisUrl = process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379';
    proxy = await FaultProxy.forUrl(redisUrl);
    // The verification window must outlast the outage, or purchases still unsubmitted at its end fail (NOT_SUBMITTED) by design.
    stack = await startReliabilityStack({ redisUrl: proxy.proxied(redisUrl), config: { PAYOUT_PROVIDER_TIMEOUT_MS: '3000', PURCHASE_VERIFICATION_WINDOW_MS: String(REDIS_OUTAGE_MS + 60_000) } });
    buyer = await stack.purchaseVendor();
    payer = await stack.payoutVendor({ fundCents: 100_000_000n });
  });
  afterAll(() => closeCheckingBooks(stack, () => [buyer.vendor.id, payer.vendor.id], { alsoClose: [proxy] }));

  it(`refuses API requests (503 SERVICE_UNAVAILABLE) for ${REDIS_OUTAGE_MS / 1000} s without Redis, writes nothing for them, and catches up once it returns`, async () => {
    const target: TrafficTarget = { purchaseUrl: stack.purchase.url, payoutUrl: stack.payout.url, purchaseToken: buyer.token, payoutToken: payer.token };
    const traffic = startTraffic(target);
    // Redis is cut once traffic has a purchase admitted before it (on a loaded machine the first
    // second may not hold one), so the catch-up below has something to catch up.
    const before = Date.now() + 15_000;
    do await sleep(1_000);
    while (!traffic.records.some((entry) => entry.kind === 'purchase' && entry.status === 202) && Date.now() < before);
    proxy.setMode('refuse');
    const cut = proxy.cutAll();
    const outageStarted = Date.now();
    await sleep(Math.min(3_000, REDIS_OUTAGE_MS));
    const readiness = await attempt(stack.purchase.url, { path: '/health/ready', timeoutMs: ANSWER_BOUND_MS });
    await sleep(Math.max(0, REDIS_OUTAGE_MS - (Date.now() - outageStarted)));
    // What was admitted just before the cut and still waited for Redis (a figure, not asserted: it may be zero).
    const [backlog] = await stack.sql<{ rows: number }>(`SELECT count(*)::int AS rows FROM outbox_messages WHERE dispatched_at IS NULL`);
    proxy.setMode('pass');
    const restoredAt = Date.now();
    const records = await traffic.stop();

    expectBounded(records);
    // The per-token rate limiter cannot count without Redis and fails closed: once the clients have
    // seen the cut (a short grace for requests already past the limiter), every API request of
    // both gateways is refused with 503 SERVICE_UNAVAILABLE and Retry-After, before any handler runs.
    const refusedFrom = outageStarted + OUTAGE_GRACE_MS;
    const duringOutage = records.filter((entry) => entry.at >= refusedFrom && entry.at < restoredAt);
    expect(duringOutage.length).toBeGreaterThan(REDIS_OUTAGE_MS / 1000);
    expect(duringOutage.filter((entry) => !(entry.status === 503 && entry.code === 'SERVICE_UNAVAILABLE'))).toEqual([]);
    expect([...new Set(duringOutage.map((entry) => entry.kind))]).toEqual(expect.arrayContaining(['quote', 'payout', 'batch', 'read']));
    // Nothing was written for them: no purchase, quote or payout row dates from the outage.
    const written = await stack.sql<{ rows: number }>(
      `SELECT (SELECT count(*) FROM purchase_transactions WHERE vendor_id = $1 AND created_at >= $3 AND created_at < $4)
            + (SELECT count(*) FROM purchase_quotes WHERE vendor_id = $1 AND created_at >= $3 AND created_at < $4)
            + (SELECT count(*) FROM payouts WHERE vendor_id = $2 AND created_at >= $3 AND created_at < $4) AS rows`,
      [buyer.vendor.id, payer.vendor.id, new Date(refusedFrom + ANSWER_BOUND_MS), new Date(restoredAt)],
    );
    expect(written.map((row) => Number(row.rows))).toEqual([0]);
    expect(isAnswer(readiness) && readiness.status).toBe(503);

    // Once Redis is back the API admits again.
    const again = await eventually(
      () => attempt(stack.purchase.url, { method: 'POST', path: '/api/v1/quotes', token: buyer.token, body: airtimeQuote('55'), timeoutMs: ANSWER_BOUND_MS }),
      (answer) => isAnswer(answer) && answer.status === 201,
      30_000,
      250,
    );
    expect(isAnswer(again) && again.status).toBe(201);

    const settled = await expectSettledOnce(stack, buyer, payer);
    const caughtUpMs = Date.now() - restoredAt;
    const admitted = records.filter((entry) => entry.kind === 'purchase' && entry.status === 202).map((entry) => entry.id);
    expect(admitted.length).toBeGreaterThan(0);
    // Every accepted purchase was submitted once and completed.
    expect(settled.purchases.filter((row) => admitted.includes(row.id)).map((row) => row.status)).toEqual(admitted.map(() => 'completed'));
    expect(settled.purchaseWitness.every((tally) => tally.count === 1)).toBe(true);
    expect(settled.payouts.every((row) => row.status === 'paid')).toBe(true);
    // What the outage left in the outbox (callbacks are public, so the provider's hints still land)
    // is relayed once the relay's Redis client has reconnected: polled for, not assumed done.
    await eventually(
      () => stack.sql<{ rows: number }>(`SELECT count(*)::int AS rows FROM outbox_messages WHERE dispatched_at IS NULL AND run_at < now() - interval '5 seconds'`),
      (rows) => rows[0].rows === 0,
      30_000,
      250,
    );

    faults.push({
      fault: 'redis unreachable',
      outageMs: REDIS_OUTAGE_MS,
      connectionsCut: cut,
      requests: records.length,
      refusedDuringOutage: duringOutage.length,
      answers: tally(records),
      p99Ms: Math.round(percentile(records.map((entry) => entry.elapsedMs), 99)),
      slowest: [...records]
        .sort((a, b) => b.elapsedMs - a.elapsedMs)
        .slice(0, 5)
        .map((entry) => ({ kind: entry.kind, status: entry.status, ms: Math.round(entry.elapsedMs), sentAfterOutageStartMs: entry.at - outageStarted })),
      outboxBacklogAtRestore: backlog.rows,
      caughtUpMs,
    });
  }, REDIS_OUTAGE_MS + 90_000);
});

describe('PostgreSQL connections cut under traffic', () => {
  let stack: ReliabilityStack;
  let proxy: FaultProxy;
  let buyer: TestVendor;
  let payer: TestVendor;
  let target: TrafficTarget;

  beforeAll(async () => {
    const databaseUrl = process.env.E2E_DATABASE_URL!;
    proxy = await FaultProxy.forUrl(databaseUrl);
    stack = await startReliabilityStack({
      databaseUrl: proxy.proxied(databaseUrl),
      config: { PAYOUT_PROVIDER_TIMEOUT_MS: '3000', PURCHASE_VERIFICATION_WINDOW_MS: String(PG_OUTAGE_MS + 60_000) },
    });
    buyer = await stack.purchaseVendor();
    payer = await stack.payoutVendor({ fundCents: 100_000_000n });
    target = { purchaseUrl: stack.purchase.url, payoutUrl: stack.payout.url, purchaseToken: buyer.token, payoutToken: payer.token };
  });
  afterAll(() => closeCheckingBooks(stack, () => [buyer.vendor.id, payer.vendor.id], { alsoClose: [proxy] }));

  /** The pool is not stuck: three pool-fulls of concurrent requests all succeed. */
  async function expectPoolRecovered(): Promise<number> {
    const started = Date.now();
    await eventually(
      () => call(stack.purchase.url, { path: '/api/v1/limits', token: buyer.token, timeoutMs: ANSWER_BOUND_MS }),
      (answer) => answer.status === 200,
      20_000,
      200,
    );
    const recoveredMs = Date.now() - started;
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        index % 2
          ? call(stack.purchase.url, { path: '/api/v1/limits', token: buyer.token, timeoutMs: ANSWER_BOUND_MS })
          : call(stack.payout.url, { path: '/api/v1/account', token: payer.token, timeoutMs: ANSWER_BOUND_MS }),
      ),
    );
    expect(burst.map((answer) => answer.status)).toEqual(burst.map(() => 200));
    return recoveredMs;
  }

  /** Every request that got a 503 (or nothing) is replayed: exactly one effect per key or reference. */
  async function replayAll(records: readonly TrafficRecord[]) {
    for (const entry of records.filter((item) => item.kind === 'purchase')) {
      const replay = await buy(stack.purchase.url, buyer.token, entry.quoteId!, entry.key!, entry.reference!);
      expect(replay.status).toBe(202);
      if (entry.status === 202) expect(dataOf(replay).id).toBe(entry.id);
    }
    for (const entry of records.filter((item) => item.kind === 'payout' || item.kind === 'batch')) {
      const replay = await call(stack.payout.url, { method: 'POST', path: entry.kind === 'payout' ? '/api/v1/payouts' : '/api/v1/batches', token: payer.token, body: entry.body });
      expect(replay.status).toBe(entry.kind === 'payout' ? 200 : 202);
      if (entry.id) expect(dataOf(replay).id).toBe(entry.id);
    }
    const perKey = await stack.sql<{ reference: string; n: number }>(
      `SELECT reference, count(*)::int AS n FROM purchase_transactions WHERE vendor_id = $1 GROUP BY reference HAVING count(*) > 1`,
      [buyer.vendor.id],
    );
    expect(perKey).toEqual([]);
  }

  it.each([
    ['refused (server restarting)', 'refuse' as const],
    ['blackholed (network partition)', 'blackhole' as const],
    // New connections work, but every open one is reset every 50-300 ms: requests lose their connection mid-transaction.
    ['reset again and again mid-request', 'flap' as const],
  ])(`connections %s for ${PG_OUTAGE_MS / 1000} s: clean 503s, automatic recovery, no stuck pool, one effect per request`, async (label, mode) => {
    // A request caught by a partition waits for it to heal; the client gives it that long plus the bound.
    const traffic = startTraffic(target, { intervalMs: 200, timeoutMs: PG_OUTAGE_MS + 2 * ANSWER_BOUND_MS });
    await sleep(1_000);
    const outageStarted = Date.now();
    let cut = 0;
    if (mode === 'flap') {
      const random = seededRandom(outageStarted);
      while (Date.now() - outageStarted < PG_OUTAGE_MS) {
        cut += proxy.cutAll();
        await sleep(50 + Math.floor(random() * 250));
      }
    } else {
      proxy.setMode(mode);
      if (mode === 'refuse') cut = proxy.cutAll();
      await sleep(PG_OUTAGE_MS);
    }
    proxy.setMode('pass');
    // A partition that heals leaves the frozen connections usable; a restart leaves none.
    const restoredAt = Date.now();
    await sleep(1_000);
    const records = await traffic.stop();
    const recoveredMs = await expectPoolRecovered();
    const slowest = Math.max(...records.map((entry) => entry.elapsedMs));
    faults.push({
      fault: `postgres ${label}`,
      outageMs: PG_OUTAGE_MS,
      connectionsCut: cut,
      requests: records.length,
      answers: tally(records),
      answersDuringOutage: tally(records.filter((entry) => entry.at >= outageStarted && entry.at < restoredAt)),
      slowestMs: Math.round(slowest),
      recoveredMs,
    });

    expect(records.filter((entry) => entry.error !== undefined)).toEqual([]);
    expect(records.filter((entry) => (entry.status ?? 0) >= 500 && (entry.status !== 503 || entry.code !== 'SERVICE_UNAVAILABLE'))).toEqual([]);
    const duringOutage = records.filter((entry) => entry.at >= outageStarted && entry.at < restoredAt);
    // A stopped server is noticed at once; a short partition may simply be waited out.
    if (mode !== 'blackhole') expect(duringOutage.filter((entry) => entry.status === 503).length).toBeGreaterThan(0);
    // Requests sent during a partition may wait for it to heal; none may outlive it by more than the bound.
    expect(slowest).toBeLessThan((mode === 'blackhole' ? PG_OUTAGE_MS : 0) + ANSWER_BOUND_MS);

    await replayAll(records);
    await expectSettledOnce(stack, buyer, payer);
  }, PG_OUTAGE_MS + 90_000);
});

describe('provider slow, failing or silent', () => {
  let stack: ReliabilityStack;
  const vendorIds: string[] = [];

  beforeAll(async () => {
    stack = await startReliabilityStack({
      providerProxy: true,
      config: {
        PURCHASE_PROVIDER_TIMEOUT_MS: '1000',
        PURCHASE_VERIFICATION_WINDOW_MS: '30000',
        PURCHASE_NOT_FOUND_SETTLE_MS: '300',
        PAYOUT_PROVIDER_TIMEOUT_MS: '1000',
        PAYOUT_REVIEW_AFTER_MS: String(PROVIDER_OUTAGE_MS + 6_000),
      },
    });
  });
  afterAll(() => closeCheckingBooks(stack, () => vendorIds));

  /**
   * Purchases are submitted by the worker, which looks our id up before any create: while the
   * provider fails that lookup nothing is sent, so every purchase is created once, after the
   * fault. A single payout is submitted inside the request: a slow provider paid it (found by a
   * status poll); a failing or silent one never received it, so once the provider is back two
   * lookups after the settle period find nothing and the payout fails (not_received_by_provider)
   * with its hold released once (nothing is ever resubmitted).
   */
  const scenarios = [
    { label: 'slow (answers after the timeout)', apply: (proxy: FaultProxy) => proxy.setLatency(1_500, 'response'), payout: 'paid', payoutSubmissions: 1 },
    {
      label: 'failing with HTTP 503',
      apply: (proxy: FaultProxy) => {
        proxy.setMode('http-503');
        proxy.cutAll();
      },
      payout: 'failed',
      payoutSubmissions: 0,
    },
    { label: 'not answering at all', apply: (proxy: FaultProxy) => proxy.setMode('blackhole'), payout: 'failed', payoutSubmissions: 0 },
  ];

  it.each(scenarios)('provider $label: bounded answers, then every purchase and payout settles with at most one submission', async ({ label, apply, payout, payoutSubmissions }) => {
    const proxy = stack.providerProxy!;
    const buyer = await stack.purchaseVendor();
    const payer = await stack.payoutVendor();
    vendorIds.push(buyer.vendor.id, payer.vendor.id);
    const quotes = await Promise.all([0, 1, 2].map(() => createQuote(stack.purchase.url, buyer.token, airtimeQuote('55'))));

    apply(proxy);
    const started = Date.now();
    const [purchases, payouts, lookup] = await Promise.all([
      Promise.all(quotes.map((quote) => buy(stack.purchase.url, buyer.token, quote.id))),
      Promise.all([0, 1].map(() => call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: payer.token, body: cashPayout('55', { amount: '20.00' }), timeoutMs: ANSWER_BOUND_MS }))),
      call(stack.purchase.url, { method: 'POST', path: '/api/v1/lookups/mobile-number', token: buyer.token, body: { mobile_number: '27821234567' }, timeoutMs: ANSWER_BOUND_MS }),
    ]);
    const answeredMs = Date.now() - started;
    await sleep(Math.max(0, PROVIDER_OUTAGE_MS - answeredMs));
    // Connections that saw the fault are dropped rather than resumed: a request the provider never
    // read must not reach it later (that late delivery is the slow case above).
    proxy.cutAll();
    proxy.setMode('pass');
    proxy.setLatency(0);

    // Admission never waits for the provider; a payout answers pending at our timeout; a lookup answers 503.
    expect(purchases.map((answer) => answer.status)).toEqual([202, 202, 202]);
    expect(payouts.map((answer) => [answer.status, dataOf(answer).status])).toEqual([
      [200, 'pending'],
      [200, 'pending'],
    ]);
    expect(lookup.status).toBe(503);
    expect(['PROVIDER_HTTP_ERROR', 'PROVIDER_OUTCOME_UNKNOWN']).toContain((lookup.body as { error: { code: string } }).error.code);
    expect(Math.max(...[...purchases, ...payouts, lookup].map((answer) => answer.elapsedMs))).toBeLessThan(ANSWER_BOUND_MS);

    const settled = await expectSettledOnce(stack, buyer, payer);
    expect(settled.purchases.map((row) => row.status)).toEqual(['completed', 'completed', 'completed']);
    expect(settled.purchaseWitness.map((tally) => tally.count)).toEqual([1, 1, 1]);
    // A payout may pass through needs_review before the absence proof completes: wait for its final state.
    const final = await eventually(
      () => stack.sql<{ status: string; status_reason: string | null }>(`SELECT status, status_reason FROM payouts WHERE vendor_id = $1`, [payer.vendor.id]),
      (rows) => rows.every((row) => row.status === payout),
      45_000,
      250,
    );
    expect(final.map((row) => row.status)).toEqual([payout, payout]);
    expect(settled.payoutWitness.map((tally) => tally.count)).toEqual([payoutSubmissions, payoutSubmissions]);
    if (payout === 'failed') {
      expect(final.map((row) => row.status_reason)).toEqual(['not_received_by_provider', 'not_received_by_provider']);
      // Both holds (20.00 + fee each) came back, once each.
      const [account] = await stack.sql<{ reserved: string }>(`SELECT reserved_cents::text AS reserved FROM payout_accounts WHERE vendor_id = $1`, [payer.vendor.id]);
      expect(account.reserved).toBe('0');
      const entries = await stack.sql<{ kind: string; count: number }>(
        `SELECT e.kind, count(*)::int AS count FROM ledger_entries e JOIN payouts p ON p.id = e.payout_id WHERE p.vendor_id = $1 GROUP BY e.kind ORDER BY e.kind`,
        [payer.vendor.id],
      );
      expect(entries).toEqual([
        { kind: 'release', count: 2 },
        { kind: 'reserve', count: 2 },
      ]);
    }
    faults.push({
      fault: `provider ${label}`,
      outageMs: PROVIDER_OUTAGE_MS,
      purchases: 'completed, created once after the fault',
      payouts: payout,
      payoutSubmissions,
      slowestAnswerMs: Math.round(Math.max(...[...purchases, ...payouts, lookup].map((answer) => answer.elapsedMs))),
    });
  }, 90_000);
});
