import { PayoutOperationsService } from '#payout';
import { bearer } from '../support/vendors.js';
import { PAYOUT_SANDBOX_KEY, eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { cashPayout, voucherPayout } from './payout-requests.js';

/**
 * What the gateway does with what providers say after the first answer (issue 11): a payout the
 * provider never received is released once, after the settle period and two lookups finding
 * nothing; needs_review is still looked up and closed by a late answer; an answer about another
 * amount or merchant reference moves nothing and is left to staff. The stack runs with a 300 ms
 * settle period and review poll (test/support/payout-stack.ts).
 */
describe('provider evidence after the first answer', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;

  beforeAll(async () => {
    stack = await startPayoutStack();
  });
  // A vendor per test: payouts left open by one test never move another test's balances.
  beforeEach(async () => {
    vendor = await stack.vendor({ fundCents: 1_000_000n, feePerPayoutCents: 100n });
  });
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  const post = (body: unknown) => stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(body as object);
  const get = async (reference: string) => (await stack.gateway.http().get(`/api/v1/payouts/${encodeURIComponent(reference)}`).set(bearer(vendor.token)).expect(200)).body.data;
  const account = async () => (await stack.gateway.http().get('/api/v1/account').set(bearer(vendor.token)).expect(200)).body.data as { available: string; reserved: string };
  const statusOf = (reference: string, status: string, timeoutMs = 20_000) =>
    eventually(async () => {
      const payout = await get(reference);
      expect(payout.status).toBe(status);
      return payout;
    }, timeoutMs, 100);
  const entries = async (payoutId: string) =>
    ((await stack.dataSource.query(`SELECT kind FROM ledger_entries WHERE payout_id = $1 ORDER BY id`, [payoutId])) as Array<{ kind: string }>).map((row) => row.kind);
  const contacts = async (payoutId: string) =>
    (await stack.dataSource.query(`SELECT kind, outcome, http_status, summary FROM payout_provider_contacts WHERE payout_id = $1 ORDER BY id`, [payoutId])) as Array<{
      kind: string;
      outcome: string;
      http_status: number | null;
      summary: string | null;
    }>;
  const exceptionsOf = async (payoutId: string) =>
    (await stack.dataSource.query(`SELECT kind, dedupe_key, details, status FROM reconciliation_exceptions WHERE payout_id = $1 ORDER BY kind`, [payoutId])) as Array<{
      kind: string;
      dedupe_key: string;
      details: Record<string, unknown>;
      status: string;
    }>;
  /** The provider's own status endpoint for a cash-send payment: what it holds, if anything. */
  const atProvider = async (merchantReference: string) =>
    fetch(`${stack.sandboxUrl}/cashsend/v1/bank_a_instant_money/payments/${merchantReference}`, { headers: { 'x-api-key': PAYOUT_SANDBOX_KEY } });
  /** Exact cents of a two-place amount string ("201.00" → 20100n). */
  const cents = (amount: string) => BigInt(amount.replace('.', ''));
  const pollCount = async (payoutId: string) => Number((await stack.dataSource.query(`SELECT poll_count FROM payouts WHERE id = $1`, [payoutId]))[0].poll_count);

  it('05: a submission lost with HTTP 503 is found absent twice after the settle period, fails as not_received_by_provider and releases its hold once', async () => {
    const before = await account();
    const request = cashPayout('05');
    const created = (await post(request).expect(200)).body.data;
    expect(created).toMatchObject({ status: 'pending', status_reason: 'awaiting_provider' });
    expect((await account()).available).not.toBe(before.available);

    const failed = await statusOf(request.reference, 'failed');
    expect(failed.status_reason).toBe('not_received_by_provider');
    // Amount plus fee are back: available and reserved exactly as before the payout.
    expect(await account()).toEqual(before);
    expect(await entries(created.id)).toEqual(['reserve', 'release']);
    // One submission reached the provider, which holds no payment for it.
    expect(await stack.submissions(created.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
    expect((await atProvider(created.merchant_reference)).status).toBe(404);
    // The evidence: the unanswered submission, then lookups; the two counted ones found nothing.
    const trail = await contacts(created.id);
    expect(trail[0]).toMatchObject({ kind: 'submission', outcome: 'no_answer', http_status: 503 });
    const counted = trail.filter((contact) => contact.outcome === 'not_found' && /of 2 after the settle period/.test(contact.summary ?? ''));
    expect(counted.map((contact) => contact.summary)).toEqual([
      'no payment; 1 of 2 after the settle period',
      'no payment; 2 of 2 after the settle period: never received, hold released',
    ]);
    expect(trail.every((contact) => contact.kind === 'submission' || contact.kind === 'lookup')).toBe(true);
  });

  it('releases exactly once when staff rechecks race the worker polls', async () => {
    const before = await account();
    const request = cashPayout('05');
    const created = (await post(request).expect(200)).body.data;
    const operations = stack.gateway.app.get(PayoutOperationsService);
    // Staff recheck again and again, concurrently, while the worker's own polls run.
    await eventually(async () => {
      const answers = await Promise.all(Array.from({ length: 8 }, () => operations.recheck(vendor.vendor.id, request.reference)));
      expect(answers.some((answer) => answer.status === 'failed')).toBe(true);
    }, 20_000, 100);
    await Promise.all(Array.from({ length: 8 }, () => operations.recheck(vendor.vendor.id, request.reference)));
    expect(await entries(created.id)).toEqual(['reserve', 'release']);
    expect(await account()).toEqual(before);
  });

  it('never releases a payout the provider acknowledged: a later "not found" is a status_conflict for staff and the hold stays', async () => {
    const before = await account();
    const request = cashPayout('05');
    const created = (await post(request).expect(200)).body.data;
    // As if an earlier answer had carried the payment (a submission answered "pending", say).
    await stack.dataSource.query(`UPDATE payouts SET provider_seen_at = now() WHERE id = $1`, [created.id]);
    const conflict = await eventually(async () => {
      const [exception] = await exceptionsOf(created.id);
      expect(exception).toMatchObject({ kind: 'status_conflict', dedupe_key: `payout:${created.id}:status_conflict`, status: 'open' });
      return exception;
    }, 20_000, 100);
    expect(conflict.details).toMatchObject({ provider_says: 'NOT_FOUND', merchant_reference: created.merchant_reference, amount: '200.00' });
    // Still open (pending or needs_review), only the reserve entry, the hold still reserved.
    expect(['pending', 'needs_review']).toContain((await get(request.reference)).status);
    expect(await entries(created.id)).toEqual(['reserve']);
    expect(cents((await account()).reserved) - cents(before.reserved)).toBe(20_100n);
  });

  it('keeps looking a needs_review payout up on the slow schedule, and a late provider answer closes it (paid, settled once)', async () => {
    const before = await account();
    const request = cashPayout('04');
    const created = (await post(request).expect(200)).body.data;
    const review = await statusOf(request.reference, 'needs_review');
    expect(review.status_reason).toBe('outcome_unknown');
    // Polling goes on after review: the chain's link number keeps growing.
    const atReview = await pollCount(created.id);
    await eventually(async () => expect(await pollCount(created.id)).toBeGreaterThanOrEqual(atReview + 2), 20_000, 100);
    expect((await get(request.reference)).status).toBe('needs_review');

    // The provider answers late.
    const settle = await fetch(`${stack.sandboxUrl}/__sandbox/payouts/bank_a_instant_money/${created.merchant_reference}/settle`, {
      method: 'POST',
      headers: { 'x-api-key': PAYOUT_SANDBOX_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'PAID' }),
    });
    expect(settle.status).toBe(200);
    const paid = await statusOf(request.reference, 'paid');
    expect(paid.status_reason).toBeNull();
    expect(await entries(created.id)).toEqual(['reserve', 'settle']);
    const after = await account();
    expect(after.reserved).toBe(before.reserved);
    expect(cents(before.available) - cents(after.available)).toBe(20_100n);
    expect(await stack.submissions(created.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
  });

  it.each([
    ['06', 'amount', 'amount_mismatch', { amount: '201.00' }],
    ['07', 'merchant reference', 'reference_mismatch', {}],
  ] as const)('%s: a provider answer with another %s is refused: nothing moves, the payout stays open, an exception carries the evidence', async (testValue, _what, kind, answered) => {
    const before = await account();
    const request = cashPayout(testValue);
    const created = (await post(request).expect(200)).body.data;
    // The provider said PAID, but about something else: no verdict.
    expect(created).toMatchObject({ status: 'pending', status_reason: 'awaiting_provider', delivery: null });
    // Polls see the same misstatement; the payout ends in review, never paid or released.
    await statusOf(request.reference, 'needs_review');
    expect(await entries(created.id)).toEqual(['reserve']);
    expect(cents((await account()).reserved) - cents(before.reserved)).toBe(20_100n);
    const raised = await exceptionsOf(created.id);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ kind, dedupe_key: `payout:${created.id}:${kind}`, status: 'open' });
    expect(raised[0].details).toMatchObject({
      via: 'submission',
      sent: { merchant_reference: created.merchant_reference, amount: '200.00' },
      answered: { status: 'PAID', ...answered },
    });
    // The provider's PIN for that payment is nowhere in the evidence.
    const providerView = (await (await atProvider(created.merchant_reference)).json()) as { pin: string; serial: string };
    expect(providerView.pin).toMatch(/^\d+$/);
    expect(JSON.stringify(raised[0].details)).not.toContain(providerView.pin);
    expect(JSON.stringify(await contacts(created.id))).not.toContain(providerView.pin);
    expect((await contacts(created.id))[0]).toMatchObject({ kind: 'submission', outcome: 'refused_mismatch' });
  });

  it('06 on a voucher: a misstated amount is refused the same way', async () => {
    const request = voucherPayout('06');
    const created = (await post(request).expect(200)).body.data;
    expect(created.status).toBe('pending');
    expect(await entries(created.id)).toEqual(['reserve']);
    expect((await exceptionsOf(created.id)).map((exception) => exception.kind)).toEqual(['amount_mismatch']);
  });
});
