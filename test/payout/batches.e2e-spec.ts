import { bearer } from '../support/vendors.js';
import { eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { FIXED_MESSAGES, cashPayout, recipient, rtcPayout, uniqueReference, voucherPayout } from './payout-requests.js';

/** Item i of a mixed batch: cash rails, RTC and vouchers, all with ordinary (paid) test values. */
function mixedItem(i: number) {
  switch (i % 5) {
    case 0:
      return cashPayout('55', { amount: '100.00' });
    case 1:
      return cashPayout('55', { method: 'bank_b_cardless', amount: '100.00' });
    case 2:
      return rtcPayout('55', { amount: '10.55' });
    case 3:
      return voucherPayout('55', { amount: '5.55' });
    default:
      return voucherPayout('55', { method: 'voucher_type_2', amount: '5.55' });
  }
}

describe('batches', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;

  beforeAll(async () => {
    stack = await startPayoutStack();
    vendor = await stack.vendor({ fundCents: 100_000_000n, feePerPayoutCents: 100n });
  });
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  const postBatch = (body: unknown, token = vendor.token) => stack.gateway.http().post('/api/v1/batches').set(bearer(token)).send(body as object);
  const getBatch = (reference: string, token = vendor.token) => stack.gateway.http().get(`/api/v1/batches/${encodeURIComponent(reference)}`).set(bearer(token));
  const account = async (token = vendor.token) => (await stack.gateway.http().get('/api/v1/account').set(bearer(token)).expect(200)).body.data;
  const batchStatus = (reference: string, status: string, timeoutMs = 30_000, token = vendor.token) =>
    eventually(async () => {
      const response = await getBatch(reference, token).expect(200);
      expect(response.body.data.status).toBe(status);
      return response.body.data;
    }, timeoutMs, 200);
  const payoutRows = async (vendorId: string) =>
    (await stack.dataSource.query(`SELECT count(*)::int AS count FROM payouts WHERE vendor_id = $1`, [vendorId]))[0].count as number;

  it('accepts 500 items atomically with 202 and pays every item exactly once', async () => {
    const before = await account();
    const reference = uniqueReference('batch500');
    const items = Array.from({ length: 500 }, (_, i) => mixedItem(i));
    const started = process.hrtime.bigint();
    const response = await postBatch({ reference, payouts: items }).expect(202);
    const acceptedMs = Number(process.hrtime.bigint() - started) / 1e6;
    // A figure for the log, not an assertion: wall-clock time depends on the machine's load.
    console.log(`500-item batch accepted in ${acceptedMs.toFixed(0)} ms`);

    // 100 cash items at 100.00 + 1.00 fee each, 100 rtc at 10.55 + 1.00, 300 vouchers at 5.55 + 0.00 (x2 methods: 200 at type_1/2).
    const totalAmountCents = 200 * 10_000 + 100 * 1_055 + 200 * 555;
    const totalFeeCents = 300 * 100;
    expect(response.body.success).toBe(true);
    expect(response.body.data).toMatchObject({
      reference,
      status: 'processing',
      item_count: 500,
      currency: 'ZAR',
      total_amount: (totalAmountCents / 100).toFixed(2),
      total_fee: (totalFeeCents / 100).toFixed(2),
    });
    expect(response.body.data.payouts).toHaveLength(500);
    expect(response.body.data.payouts.map((p: { reference: string }) => p.reference)).toEqual(items.map((item) => item.reference));
    const reservedRightAway = await account();
    expect(Math.round(Number(reservedRightAway.available) * 100)).toBe(Math.round(Number(before.available) * 100) - totalAmountCents - totalFeeCents);

    const completed = await batchStatus(reference, 'completed', 60_000);
    expect(new Set(completed.payouts.map((p: { status: string }) => p.status))).toEqual(new Set(['paid']));
    const after = await account();
    expect(after.reserved).toBe(before.reserved);
    expect(Math.round(Number(after.available) * 100)).toBe(Math.round(Number(before.available) * 100) - totalAmountCents - totalFeeCents);

    const submissions = await Promise.all(completed.payouts.map((p: { merchant_reference: string }) => stack.submissions(p.merchant_reference)));
    expect(submissions.every((tally) => tally.count === 1 && tally.duplicate_attempts === 0)).toBe(true);
  }, 90_000);

  it('rejects a whole 500-item batch for one bad row, naming the row and field, and reserves nothing', async () => {
    const before = await account();
    const rowsBefore = await payoutRows(vendor.vendor.id);
    const items = Array.from({ length: 500 }, (_, i) => mixedItem(i));
    items[317] = { ...items[317], recipient: recipient('55', { id_number: '8001015009088' }) };
    const response = await postBatch({ reference: uniqueReference('bad-row'), payouts: items }).expect(422);
    expect(response.body).toEqual({
      success: false,
      code: 'VALIDATION_FAILED',
      message: FIXED_MESSAGES.VALIDATION_FAILED,
      errors: { 'payouts.317.recipient.id_number': [expect.any(String)] },
    });
    expect(await account()).toEqual(before);
    expect(await payoutRows(vendor.vendor.id)).toBe(rowsBefore);
  });

  it('rejects the batch when one item breaks a method rule (limits, increment, bank account)', async () => {
    const items = [cashPayout(), cashPayout('55', { amount: '5000.00' }), rtcPayout('55', { recipient: recipient() })];
    const response = await postBatch({ reference: uniqueReference('rules'), payouts: items }).expect(422);
    expect(Object.keys(response.body.errors).sort()).toEqual(['payouts.1.amount', 'payouts.2.recipient.bank_account']);
    const increment = await postBatch({ reference: uniqueReference('increment'), payouts: [cashPayout(), cashPayout('55', { amount: '105.00' })] }).expect(422);
    expect(increment.body).toMatchObject({ code: 'AMOUNT_INCREMENT_INVALID', errors: { 'payouts.1.amount': [expect.stringContaining('multiple of 10.00')] } });
  });

  it('refuses item references repeated within the batch or used before', async () => {
    const used = cashPayout();
    await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(used).expect(200);
    const twin = cashPayout();
    const response = await postBatch({ reference: uniqueReference('dupes'), payouts: [twin, { ...cashPayout(), reference: twin.reference }, used] }).expect(422);
    expect(Object.keys(response.body.errors).sort()).toEqual(['payouts.1.reference', 'payouts.2.reference']);
  });

  it('refuses an empty batch and more than 500 items', async () => {
    const empty = await postBatch({ reference: uniqueReference('empty'), payouts: [] }).expect(422);
    expect(empty.body.errors.payouts).toBeDefined();
    const tooMany = await postBatch({ reference: uniqueReference('501'), payouts: Array.from({ length: 501 }, (_, i) => mixedItem(i)) }).expect(422);
    expect(tooMany.body.errors.payouts).toEqual(expect.arrayContaining([expect.stringContaining('at most 500')]));
  });

  it('answers INSUFFICIENT_FUNDS when the balance does not cover the whole batch, and reserves nothing', async () => {
    const small = await stack.vendor({ fundCents: 30_000n, feePerPayoutCents: 100n, name: 'Small batch vendor' });
    const before = await account(small.token);
    const response = await postBatch({ reference: uniqueReference('broke'), payouts: [cashPayout(), cashPayout()] }, small.token).expect(409);
    expect(response.body.code).toBe('INSUFFICIENT_FUNDS');
    expect(await account(small.token)).toEqual(before);
    expect(await payoutRows(small.vendor.id)).toBe(0);
  });

  it('replays an identical batch (202, current state) and refuses a changed one with REFERENCE_CONFLICT', async () => {
    const reference = uniqueReference('replay');
    const items = [cashPayout(), voucherPayout()];
    const first = await postBatch({ reference, payouts: items }).expect(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    await batchStatus(reference, 'completed');
    const before = await account();
    const replay = await postBatch({ reference, payouts: items }).expect(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data).toMatchObject({ id: first.body.data.id, status: 'completed', item_count: 2 });
    expect(await account()).toEqual(before);
    const changed = await postBatch({ reference, payouts: [items[0], { ...items[1], amount: '51.55' }] }).expect(409);
    expect(changed.body).toEqual({ success: false, code: 'REFERENCE_CONFLICT', message: FIXED_MESSAGES.REFERENCE_CONFLICT, errors: {} });
    const shorter = await postBatch({ reference, payouts: [items[0]] }).expect(409);
    expect(shorter.body.code).toBe('REFERENCE_CONFLICT');
  });

  it('derives completed_with_failures from failed and reversed items, with the funds of those returned', async () => {
    const reference = uniqueReference('mixed');
    const before = await account();
    const items = [cashPayout('55'), cashPayout('01'), voucherPayout('03')];
    await postBatch({ reference, payouts: items }).expect(202);
    const done = await eventually(async () => {
      const batch = (await getBatch(reference).expect(200)).body.data;
      expect(batch.payouts.map((p: { status: string }) => p.status)).toEqual(['paid', 'failed', 'reversed']);
      return batch;
    }, 30_000, 200);
    expect(done.status).toBe('completed_with_failures');
    const after = await account();
    expect(Math.round(Number(after.available) * 100)).toBe(Math.round(Number(before.available) * 100) - 20_100);
  });

  it('derives needs_review when an item outcome never becomes known', async () => {
    const reference = uniqueReference('review');
    await postBatch({ reference, payouts: [voucherPayout('55'), rtcPayout('04')] }).expect(202);
    const batch = await batchStatus(reference, 'needs_review');
    expect(batch.payouts.map((p: { status: string }) => p.status)).toEqual(['paid', 'needs_review']);
  });

  it("answers 404 for another vendor's batch", async () => {
    const reference = uniqueReference('mine');
    await postBatch({ reference, payouts: [cashPayout()] }).expect(202);
    const other = await stack.vendor({ name: 'Batch stranger' });
    await getBatch(reference, other.token).expect(404);
    await getBatch('no-such-batch').expect(404);
  });
});
