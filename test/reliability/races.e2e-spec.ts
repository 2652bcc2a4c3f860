import { eventually } from '../support/purchase-stack.js';
import { reportFigures } from '../support/reliability/figures.js';
import { OpenApiResponseValidator } from '../support/reliability/openapi-validator.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { buy, call, createQuote, dataOf, uniqueKey, type HttpAnswer } from '../support/reliability/requests.js';
import type { TestVendor } from '../support/vendors.js';
import { cashPayout, uniqueReference } from '../payout/payout-requests.js';

/**
 * Concurrency: many real clients (sockets) racing for one key, one quote, one allowance, one
 * balance, one payout reference and one batch reference. Every race ends with exactly the right
 * number of effects in PostgreSQL and at the provider (the sandbox witness), and every answer
 * matches the service's OpenAPI document.
 */
describe('races', () => {
  let stack: ReliabilityStack;
  let purchaseDoc: OpenApiResponseValidator;
  let payoutDoc: OpenApiResponseValidator;
  const vendorIds: string[] = [];
  const figures = { races: 0, requests: 0 };

  beforeAll(async () => {
    // A generous provider timeout: the point here is contention in our code, not a slow provider.
    stack = await startReliabilityStack({ config: { PAYOUT_PROVIDER_TIMEOUT_MS: '5000', DATABASE_POOL_SIZE: '20' } });
    purchaseDoc = await OpenApiResponseValidator.fromApp(stack.purchase.http, 'purchase');
    payoutDoc = await OpenApiResponseValidator.fromApp(stack.payout.http, 'payout');
  });
  afterAll(() =>
    closeCheckingBooks(stack, () => vendorIds, {
      andThen: () => reportFigures('races', { ...figures, responsesValidated: purchaseDoc.stats.validated + payoutDoc.stats.validated }),
    }),
  );

  async function purchaseVendor(limits?: Parameters<ReliabilityStack['purchaseVendor']>[0]): Promise<TestVendor> {
    const vendor = await stack.purchaseVendor(limits);
    vendorIds.push(vendor.vendor.id);
    return vendor;
  }

  async function payoutVendor(options?: Parameters<ReliabilityStack['payoutVendor']>[0]): Promise<TestVendor> {
    const vendor = await stack.payoutVendor(options);
    vendorIds.push(vendor.vendor.id);
    return vendor;
  }

  /** Fires all at once (each its own socket), validates every answer against the document. */
  async function burst(requests: Array<() => Promise<HttpAnswer>>, method: string, path: (index: number) => string, doc: OpenApiResponseValidator): Promise<HttpAnswer[]> {
    figures.races += 1;
    figures.requests += requests.length;
    const answers = await Promise.all(requests.map((send) => send()));
    answers.forEach((answer, index) => doc.assertValid({ method, path: path(index), status: answer.status, body: answer.body }));
    return answers;
  }

  const statuses = (answers: HttpAnswer[]) => answers.reduce<Record<number, number>>((tally, { status }) => ({ ...tally, [status]: (tally[status] ?? 0) + 1 }), {});
  const codesOf = (answers: HttpAnswer[]) =>
    answers.filter((answer) => answer.status >= 400).map((answer) => (answer.body as { error?: { code: string }; code?: string }).error?.code ?? (answer.body as { code: string }).code);

  /** Waits until the worker has submitted (and settled) every purchase of the vendor. */
  async function settledPurchases(vendorId: string): Promise<Array<{ id: string; status: string }>> {
    return eventually(
      () => stack.sql<{ id: string; status: string }>(`SELECT id::text, status FROM purchase_transactions WHERE vendor_id = $1`, [vendorId]),
      (rows) => rows.every((row) => row.status !== 'pending'),
      20_000,
      200,
    );
  }

  it('one Idempotency-Key from 200 concurrent clients: one purchase, 200 identical answers, one provider create', async () => {
    const vendor = await purchaseVendor();
    const quote = await createQuote(stack.purchase.url, vendor.token);
    const key = uniqueKey('same-key');
    const reference = uniqueKey('same-ref');
    const answers = await burst(
      Array.from({ length: 200 }, () => () => buy(stack.purchase.url, vendor.token, quote.id, key, reference)),
      'POST',
      () => '/api/v1/transactions',
      purchaseDoc,
    );

    expect(statuses(answers)).toEqual({ 202: 200 });
    const ids = new Set(answers.map((answer) => dataOf(answer).id));
    expect(ids.size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    const [transactionId] = ids;
    const rows = await settledPurchases(vendor.vendor.id);
    expect(rows).toEqual([{ id: transactionId, status: 'completed' }]);
    expect(await stack.sql(`SELECT count(*)::int AS keys FROM purchase_idempotency_keys WHERE vendor_id = $1`, [vendor.vendor.id])).toEqual([{ keys: 1 }]);
    expect(await stack.sql(`SELECT used_cents::int AS used FROM purchase_daily_allowances WHERE vendor_id = $1`, [vendor.vendor.id])).toEqual([{ used: quote.charge_minor }]);
    expect(await stack.witness('external_id', transactionId)).toEqual({ count: 1, duplicate_attempts: 0 });
  });

  it('one quote bought under 50 different keys at once: exactly one purchase, 49 QUOTE_ALREADY_USED', async () => {
    const vendor = await purchaseVendor();
    const quote = await createQuote(stack.purchase.url, vendor.token);
    const answers = await burst(
      Array.from({ length: 50 }, (_, index) => () => buy(stack.purchase.url, vendor.token, quote.id, uniqueKey(`k${index}`), uniqueKey(`r${index}`))),
      'POST',
      () => '/api/v1/transactions',
      purchaseDoc,
    );

    expect(statuses(answers)).toEqual({ 202: 1, 409: 49 });
    expect(new Set(codesOf(answers))).toEqual(new Set(['QUOTE_ALREADY_USED']));
    const winner = dataOf(answers.find((answer) => answer.status === 202)!);
    expect(await settledPurchases(vendor.vendor.id)).toEqual([{ id: winner.id, status: 'completed' }]);
    // Refused requests stored nothing: their keys are free for a retry.
    expect(await stack.sql(`SELECT count(*)::int AS keys FROM purchase_idempotency_keys WHERE vendor_id = $1`, [vendor.vendor.id])).toEqual([{ keys: 1 }]);
    expect(await stack.witness('external_id', winner.id)).toEqual({ count: 1, duplicate_attempts: 0 });
  });

  it('one reference under 20 different keys and quotes at once: one purchase, the rest IDEMPOTENCY_CONFLICT', async () => {
    const vendor = await purchaseVendor();
    const quotes = await Promise.all(Array.from({ length: 20 }, () => createQuote(stack.purchase.url, vendor.token)));
    const reference = uniqueKey('shared-ref');
    const answers = await burst(
      quotes.map((quote, index) => () => buy(stack.purchase.url, vendor.token, quote.id, uniqueKey(`k${index}`), reference)),
      'POST',
      () => '/api/v1/transactions',
      purchaseDoc,
    );
    expect(statuses(answers)).toEqual({ 202: 1, 409: 19 });
    expect(new Set(codesOf(answers))).toEqual(new Set(['IDEMPOTENCY_CONFLICT']));
    expect(await settledPurchases(vendor.vendor.id)).toHaveLength(1);
    const used = await stack.sql<{ used: number }>(`SELECT count(*)::int AS used FROM purchase_quotes WHERE vendor_id = $1 AND used_at IS NOT NULL`, [vendor.vendor.id]);
    expect(used).toEqual([{ used: 1 }]);
  });

  it('the daily cap hit by 100 concurrent purchases where 37 fit: exactly 37 admitted, the cap never exceeded', async () => {
    const fit = 37;
    const probe = await purchaseVendor();
    const charge = (await createQuote(stack.purchase.url, probe.token)).charge_minor;
    const vendor = await purchaseVendor({ limits: { dailyCapMinor: fit * charge + charge - 1 } });
    const quotes = await Promise.all(Array.from({ length: 100 }, () => createQuote(stack.purchase.url, vendor.token)));
    expect(new Set(quotes.map((quote) => quote.charge_minor))).toEqual(new Set([charge]));

    const answers = await burst(
      quotes.map((quote) => () => buy(stack.purchase.url, vendor.token, quote.id)),
      'POST',
      () => '/api/v1/transactions',
      purchaseDoc,
    );

    expect(statuses(answers)).toEqual({ 202: fit, 409: 100 - fit });
    expect(new Set(codesOf(answers))).toEqual(new Set(['DAILY_CAP_EXCEEDED']));
    for (const refused of answers.filter((answer) => answer.status === 409)) expect((refused.body as { error: { remaining_minor: number } }).error.remaining_minor).toBe(charge - 1);
    const [allowance] = await stack.sql<{ used: number }>(`SELECT used_cents::int AS used FROM purchase_daily_allowances WHERE vendor_id = $1`, [vendor.vendor.id]);
    expect(allowance.used).toBe(fit * charge);
    const settled = await settledPurchases(vendor.vendor.id);
    expect(settled).toHaveLength(fit);
    const witnessed = await Promise.all(settled.map((row) => stack.witness('external_id', row.id)));
    expect(witnessed.filter((tally) => tally.count !== 1)).toEqual([]);
  });

  it('the payout balance hit by 100 concurrent payouts where 37 fit: exactly 37 paid, no overdraft', async () => {
    const fit = 37n;
    const hold = 10_000n + 100n; // 100.00 plus the 1.00 fee
    const vendor = await payoutVendor({ fundCents: fit * hold + hold - 1n, feePerPayoutCents: 100n });
    const requests = Array.from({ length: 100 }, () => cashPayout('55', { amount: '100.00' }));
    const answers = await burst(
      requests.map((body) => () => call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: vendor.token, body })),
      'POST',
      () => '/api/v1/payouts',
      payoutDoc,
    );

    expect(statuses(answers)).toEqual({ 200: Number(fit), 409: 100 - Number(fit) });
    expect(new Set(codesOf(answers))).toEqual(new Set(['INSUFFICIENT_FUNDS']));
    const admitted = answers.filter((answer) => answer.status === 200).map((answer) => dataOf(answer));
    const payouts = await eventually(
      () => stack.sql<{ status: string; merchant_reference: string }>(`SELECT status, merchant_reference FROM payouts WHERE vendor_id = $1`, [vendor.vendor.id]),
      (rows) => rows.every((row) => row.status === 'paid'),
    );
    expect(payouts).toHaveLength(Number(fit));
    expect(new Set(payouts.map((row) => row.merchant_reference))).toEqual(new Set(admitted.map((payout) => payout.merchant_reference)));
    const [account] = await stack.sql<{ available: string; reserved: string }>(`SELECT available_cents::text AS available, reserved_cents::text AS reserved FROM payout_accounts WHERE vendor_id = $1`, [
      vendor.vendor.id,
    ]);
    expect(account).toEqual({ available: (hold - 1n).toString(), reserved: '0' });
    const witnessed = await Promise.all(payouts.map((row) => stack.witness('merchant_reference', row.merchant_reference)));
    expect(witnessed.filter((tally) => tally.count !== 1)).toEqual([]);
  });

  it('one payout reference sent 50 times at once: one payout, one submission, 50 identical verdicts', async () => {
    const vendor = await payoutVendor({ feePerPayoutCents: 100n });
    const request = cashPayout('55');
    const answers = await burst(
      Array.from({ length: 50 }, () => () => call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: vendor.token, body: request })),
      'POST',
      () => '/api/v1/payouts',
      payoutDoc,
    );

    expect(statuses(answers)).toEqual({ 200: 50 });
    const verdicts = new Set(answers.map((answer) => JSON.stringify({ ...dataOf(answer), delivery: null })));
    expect(verdicts.size).toBe(1);
    const payout = dataOf(answers[0]);
    expect(payout.status).toBe('paid');
    const entries = await stack.sql<{ kind: string; n: number }>(
      `SELECT kind, count(*)::int AS n FROM ledger_entries WHERE payout_id = $1 GROUP BY kind ORDER BY kind`,
      [payout.id],
    );
    expect(entries).toEqual([
      { kind: 'reserve', n: 1 },
      { kind: 'settle', n: 1 },
    ]);
    expect(await stack.witness('merchant_reference', payout.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
  });

  it('one payout reference sent 50 times at once with two different payloads: one payout, the other payload REFERENCE_CONFLICT', async () => {
    const vendor = await payoutVendor();
    const first = cashPayout('55', { amount: '100.00' });
    const second = { ...first, amount: '110.00' };
    const answers = await burst(
      Array.from({ length: 50 }, (_, index) => () => call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: vendor.token, body: index % 2 ? second : first })),
      'POST',
      () => '/api/v1/payouts',
      payoutDoc,
    );
    expect(statuses(answers)).toEqual({ 200: 25, 409: 25 });
    expect(new Set(codesOf(answers))).toEqual(new Set(['REFERENCE_CONFLICT']));
    const winners = new Set(answers.filter((answer) => answer.status === 200).map((answer) => dataOf(answer).amount));
    expect(winners.size).toBe(1);
    const rows = await stack.sql<{ merchant_reference: string }>(`SELECT merchant_reference FROM payouts WHERE vendor_id = $1`, [vendor.vendor.id]);
    expect(rows).toHaveLength(1);
    expect(await stack.witness('merchant_reference', rows[0].merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
  });

  it.each([2, 10])('one batch reference sent %i times at once: one batch, each item reserved and submitted once', async (copies) => {
    const vendor = await payoutVendor({ feePerPayoutCents: 100n });
    const reference = uniqueReference('race-batch');
    const payouts = Array.from({ length: 40 }, () => cashPayout('55', { amount: '50.00' }));
    const answers = await burst(
      Array.from({ length: copies }, () => () => call(stack.payout.url, { method: 'POST', path: '/api/v1/batches', token: vendor.token, body: { reference, payouts } })),
      'POST',
      () => '/api/v1/batches',
      payoutDoc,
    );

    // The refusals' bodies in the failure message: a refused copy of a batch is a bug to read.
    expect(answers.filter((answer) => answer.status !== 202).map((answer) => answer.body)).toEqual([]);
    expect(statuses(answers)).toEqual({ 202: copies });
    expect(new Set(answers.map((answer) => dataOf(answer).id)).size).toBe(1);
    const items = await eventually(
      () =>
        stack.sql<{ merchant_reference: string; status: string; reserves: number; settles: number }>(
          `SELECT p.merchant_reference, p.status,
                  (SELECT count(*)::int FROM ledger_entries e WHERE e.payout_id = p.id AND e.kind = 'reserve') AS reserves,
                  (SELECT count(*)::int FROM ledger_entries e WHERE e.payout_id = p.id AND e.kind = 'settle') AS settles
             FROM payouts p WHERE p.vendor_id = $1`,
          [vendor.vendor.id],
        ),
      (rows) => rows.length === payouts.length && rows.every((row) => row.status === 'paid'),
      20_000,
      200,
    );
    expect(items.filter((item) => item.reserves !== 1 || item.settles !== 1)).toEqual([]);
    expect(await stack.sql(`SELECT count(*)::int AS batches FROM payout_batches WHERE vendor_id = $1`, [vendor.vendor.id])).toEqual([{ batches: 1 }]);
    const witnessed = await Promise.all(items.map((item) => stack.witness('merchant_reference', item.merchant_reference)));
    expect(witnessed.filter((tally) => tally.count !== 1)).toEqual([]);
  });

  it('two different batches racing for one item reference: one is accepted whole, the other refused whole with nothing reserved', async () => {
    const vendor = await payoutVendor();
    const shared = cashPayout('55', { amount: '50.00' });
    const batches = [0, 1].map(() => ({ reference: uniqueReference('rival'), payouts: [cashPayout('55', { amount: '50.00' }), shared, cashPayout('55', { amount: '50.00' })] }));
    const answers = await burst(
      batches.map((body) => () => call(stack.payout.url, { method: 'POST', path: '/api/v1/batches', token: vendor.token, body })),
      'POST',
      () => '/api/v1/batches',
      payoutDoc,
    );
    expect(statuses(answers)).toEqual({ 202: 1, 422: 1 });
    expect(codesOf(answers)).toEqual(['VALIDATION_FAILED']);
    await eventually(
      () => stack.sql<{ status: string }>(`SELECT status FROM payouts WHERE vendor_id = $1`, [vendor.vendor.id]),
      (rows) => rows.length === 3 && rows.every((row) => row.status === 'paid'),
    );
    expect(await stack.sql(`SELECT count(*)::int AS batches FROM payout_batches WHERE vendor_id = $1`, [vendor.vendor.id])).toEqual([{ batches: 1 }]);
  });
});
