import { FieldEncryption } from '#common';
import { recipientContext, type StoredRecipient } from '#payout';
import { bearer } from '../support/vendors.js';
import { eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { FIXED_MESSAGES, cashPayout, rtcPayout, uniqueReference, voucherPayout, type TestValue } from './payout-requests.js';

type Build = (testValue?: TestValue, overrides?: Record<string, unknown>) => Record<string, unknown> & { reference: string; amount: string };

const METHODS: Array<[string, Build]> = [
  ['bank_a_instant_money', (value, overrides) => cashPayout(value, overrides)],
  ['bank_b_cardless', (value, overrides) => cashPayout(value, { method: 'bank_b_cardless', ...overrides })],
  ['rtc_eft', (value, overrides) => rtcPayout(value, overrides)],
  ['voucher_type_1', (value, overrides) => voucherPayout(value, overrides)],
  ['voucher_type_4', (value, overrides) => voucherPayout(value, { method: 'voucher_type_4', ...overrides })],
];

describe('single payouts end to end', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;

  beforeAll(async () => {
    stack = await startPayoutStack();
    vendor = await stack.vendor({ fundCents: 10_000_000n, feePerPayoutCents: 500n });
  });
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  const post = (body: unknown, token = vendor.token) => stack.gateway.http().post('/api/v1/payouts').set(bearer(token)).send(body as object);
  const get = (reference: string, token = vendor.token) => stack.gateway.http().get(`/api/v1/payouts/${encodeURIComponent(reference)}`).set(bearer(token));
  const account = async (token = vendor.token) => (await stack.gateway.http().get('/api/v1/account').set(bearer(token)).expect(200)).body.data;
  const settledStatus = (reference: string, status: string, timeoutMs = 30_000) =>
    eventually(async () => {
      const response = await get(reference).expect(200);
      expect(response.body.data.status).toBe(status);
      return response.body.data;
    }, timeoutMs);
  const holdOf = (payout: { amount: string; fee: string }) => Math.round((Number(payout.amount) + Number(payout.fee)) * 100);
  const cents = (value: string) => Math.round(Number(value) * 100);

  describe.each(METHODS)('%s', (method, build) => {
    it('is paid end to end, with the fee settled and the provider called once', async () => {
      const before = await account();
      const request = build('55', { metadata: { order: 'A-1', attempt: 1, vip: true, note: null } });
      const created = await post(request).expect(200);
      const payout = created.body.data;
      expect(payout).toMatchObject({
        reference: request.reference,
        method,
        amount: request.amount,
        currency: 'ZAR',
        metadata: { order: 'A-1', attempt: 1, vip: true, note: null },
        merchant_reference: expect.stringMatching(/^GW_PO_[0-9A-F]{32}$/),
        provider_reference: expect.any(String),
      });
      expect(payout.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      if (method === 'rtc_eft') {
        expect(payout).toMatchObject({ status: 'pending', status_reason: 'awaiting_provider', delivery: null, fee: '5.00' });
        expect((await account()).reserved).toBe(((cents(before.reserved) + holdOf(payout)) / 100).toFixed(2));
      } else {
        expect(payout).toMatchObject({ status: 'paid', status_reason: null, paid_at: expect.any(String) });
        expect(payout.delivery).toEqual(expect.objectContaining({ pin: expect.any(String), serial: expect.any(String) }));
        expect(payout.fee).toBe(method.startsWith('voucher') ? '0.00' : '5.00');
      }
      const paid = await settledStatus(request.reference, 'paid');
      expect(paid.paid_at).toEqual(expect.any(String));
      const after = await account();
      expect(cents(after.available)).toBe(cents(before.available) - holdOf(payout));
      expect(after.reserved).toBe(before.reserved);
      expect(await stack.submissions(payout.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
    });

    it('01: the provider rejects it; 422 PROVIDER_REJECTED, the payout failed/provider_rejected with its hold released, replay answers the same', async () => {
      const before = await account();
      const request = build('01');
      const first = await post(request).expect(422);
      expect(first.body).toEqual({ success: false, code: 'PROVIDER_REJECTED', message: FIXED_MESSAGES.PROVIDER_REJECTED, errors: {} });
      expect(await account()).toEqual(before);
      const stored = (await get(request.reference).expect(200)).body.data;
      expect(stored).toMatchObject({ status: 'failed', status_reason: 'provider_rejected', paid_at: null, delivery: null });
      const kinds: Array<{ kind: string }> = await stack.dataSource.query(`SELECT kind FROM ledger_entries WHERE payout_id = $1 ORDER BY id`, [stored.id]);
      expect(kinds.map((entry) => entry.kind)).toEqual(['reserve', 'release']);
      const replay = await post(request).expect(422);
      expect(replay.body).toEqual(first.body);
      expect(await account()).toEqual(before);
      expect(await stack.submissions(stored.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
    });

    it('02: the submission times out; it stays pending, a status poll finds it paid, and it is submitted once', async () => {
      const before = await account();
      const request = build('02');
      const first = await post(request).expect(200);
      expect(first.body.data).toMatchObject({ status: 'pending', status_reason: 'awaiting_provider' });
      expect(cents((await account()).reserved)).toBe(cents(before.reserved) + holdOf(first.body.data));
      await settledStatus(request.reference, 'paid');
      expect(cents((await account()).available)).toBe(cents(before.available) - holdOf(first.body.data));
      expect(await stack.submissions(first.body.data.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
    });

    it('03: paid, then reversed by the provider; amount and fee return to available', async () => {
      const before = await account();
      const request = build('03');
      const first = await post(request).expect(200);
      const reversed = await settledStatus(request.reference, 'reversed');
      expect(reversed).toMatchObject({ status_reason: 'reversed_by_provider', paid_at: expect.any(String), delivery: null });
      expect(await account()).toEqual(before);
      const kinds: Array<{ kind: string }> = await stack.dataSource.query(`SELECT kind FROM ledger_entries WHERE payout_id = $1 ORDER BY id`, [first.body.data.id]);
      expect(kinds.map((entry) => entry.kind)).toEqual(['reserve', 'settle', 'reverse']);
    });

    it('04: the outcome never becomes known; needs_review with the funds still reserved', async () => {
      const before = await account();
      const request = build('04');
      const first = await post(request).expect(200);
      expect(first.body.data.status).toBe('pending');
      const review = await settledStatus(request.reference, 'needs_review');
      expect(review.status_reason).toBe('outcome_unknown');
      expect(cents((await account()).reserved)).toBe(cents(before.reserved) + holdOf(first.body.data));
      expect(await stack.submissions(first.body.data.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
    });
  });

  describe('idempotency (rule 2)', () => {
    it('replays the same reference and payload without a second payment, whatever the key order', async () => {
      const request = cashPayout('55', { metadata: { b: 2, a: 1 } });
      const first = await post(request).expect(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const before = await account();
      const reordered = { recipient: request.recipient, metadata: { a: 1, b: 2 }, method: request.method, currency: 'ZAR', amount: request.amount, reference: request.reference };
      const replay = await post(reordered).expect(200);
      expect(replay.body).toEqual(first.body);
      // Same signal as purchase replays (issue 17), and the rate-limit headers the purchase API sends.
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
      expect(replay.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
      expect(await account()).toEqual(before);
      expect(await stack.submissions(first.body.data.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
    });

    it.each([
      ['amount', { amount: '210.00' }],
      ['method', { method: 'bank_b_cardless' }],
      ['recipient', { recipient: { ...cashPayout().recipient, surname: 'Other' } }],
      ['metadata', { metadata: { order: 'B-2' } }],
    ])('answers REFERENCE_CONFLICT (409) when the %s changes', async (_label, change) => {
      const request = cashPayout();
      await post(request).expect(200);
      const before = await account();
      const conflict = await post({ ...request, ...change }).expect(409);
      expect(conflict.body).toEqual({ success: false, code: 'REFERENCE_CONFLICT', message: FIXED_MESSAGES.REFERENCE_CONFLICT, errors: {} });
      expect(await account()).toEqual(before);
    });

    it('replays a payout still pending with its current state', async () => {
      const request = rtcPayout();
      const first = await post(request).expect(200);
      const paid = await settledStatus(request.reference, 'paid');
      const replay = await post(request).expect(200);
      expect(replay.body.data).toEqual(paid);
      expect(await stack.submissions(first.body.data.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
    });

    it('gives 50 concurrent identical requests one payout and one provider submission', async () => {
      const before = await account();
      const request = cashPayout();
      const responses = await Promise.all(Array.from({ length: 50 }, () => post(request)));
      expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200));
      const ids = new Set(responses.map((response) => response.body.data.id));
      expect(ids.size).toBe(1);
      expect(new Set(responses.map((response) => response.body.data.status))).toEqual(new Set(['paid']));
      const [{ count }] = await stack.dataSource.query(`SELECT count(*)::int AS count FROM payouts WHERE vendor_id = $1 AND reference = $2`, [vendor.vendor.id, request.reference]);
      expect(count).toBe(1);
      expect(await stack.submissions(responses[0].body.data.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
      expect(cents((await account()).available)).toBe(cents(before.available) - 20_500);
    });
  });

  describe('balance under concurrency', () => {
    it('admits exactly 10 of 100 concurrent payouts when the funds cover 10, and never goes negative', async () => {
      const tight = await stack.vendor({ fundCents: 10n * 10_500n, feePerPayoutCents: 500n, name: 'Tight vendor' });
      const responses = await Promise.all(Array.from({ length: 100 }, () => post(cashPayout('55', { amount: '100.00' }), tight.token)));
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(10);
      expect(statuses.filter((status) => status === 409)).toHaveLength(90);
      expect(new Set(responses.filter((r) => r.status === 409).map((r) => r.body.code))).toEqual(new Set(['INSUFFICIENT_FUNDS']));
      const [{ reserves }] = await stack.dataSource.query(`SELECT count(*)::int AS reserves FROM ledger_entries WHERE vendor_id = $1 AND kind = 'reserve'`, [tight.vendor.id]);
      expect(reserves).toBe(10);
      expect(await account(tight.token)).toMatchObject({ available: '0.00', reserved: '0.00' });
    });
  });

  describe('what reaches the provider and what is stored', () => {
    it('sends vouchers only the five voucher fields (the sandbox refuses identity, and it was paid)', async () => {
      const response = await post(voucherPayout('55')).expect(200);
      expect(response.body.data.status).toBe('paid');
      expect(response.body.data.provider_reference).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.body.data.delivery).toMatchObject({ pin: expect.stringMatching(/^\d{16}$/), serial: expect.any(String), instructions: expect.any(String), expires_at: expect.any(String) });
    });

    it('stores the recipient (with date of birth) encrypted and never in clear', async () => {
      const request = voucherPayout('55');
      const created = await post(request).expect(200);
      const [row] = await stack.dataSource.query(`SELECT recipient_encrypted, delivery_encrypted, metadata FROM payouts WHERE id = $1`, [created.body.data.id]);
      expect(row.recipient_encrypted).not.toContain('1980-01-01');
      expect(row.recipient_encrypted).not.toContain('Mokoena');
      expect(row.delivery_encrypted).not.toContain(created.body.data.delivery.pin);
      const stored = stack.gateway.app.get(FieldEncryption).decryptJson<StoredRecipient>(row.recipient_encrypted, recipientContext(created.body.data.id));
      expect(stored).toMatchObject({ date_of_birth: '1980-01-01', email: 'thandi@example.com', phone: request.recipient.phone });
    });

    it('snapshots the fee at creation: a later fee change does not touch it', async () => {
      const feeVendor = await stack.vendor({ fundCents: 200_000n, feePerPayoutCents: 300n, name: 'Fee vendor' });
      const request = rtcPayout('04');
      const created = await post(request, feeVendor.token).expect(200);
      expect(created.body.data.fee).toBe('3.00');
      const { PayoutAccountService } = await import('#payout');
      await stack.gateway.app.get(PayoutAccountService).setFeePerPayout(feeVendor.vendor.id, 900n);
      expect((await get(request.reference, feeVendor.token).expect(200)).body.data.fee).toBe('3.00');
      expect((await account(feeVendor.token)).reserved).toBe('1237.56');
    });
  });

  describe('reads', () => {
    it('echoes metadata as sent: null stays null in the answer, a replay, GET and a batch listing; absent is {}', async () => {
      const request = cashPayout('55', { metadata: null });
      const created = await post(request).expect(200);
      expect(created.body.data.metadata).toBeNull();
      expect((await post(request).expect(200)).body.data.metadata).toBeNull();
      expect((await get(request.reference).expect(200)).body.data.metadata).toBeNull();
      const [row] = await stack.dataSource.query(`SELECT jsonb_typeof(metadata) AS type FROM payouts WHERE id = $1`, [created.body.data.id]);
      expect(row.type).toBe('null');

      const absent = cashPayout('55');
      expect((await post(absent).expect(200)).body.data.metadata).toEqual({});

      const batchReference = uniqueReference('meta-batch');
      const items = [cashPayout('55', { metadata: null }), cashPayout('55', { metadata: { a: 1 } })];
      const accepted = await stack.gateway.http().post('/api/v1/batches').set(bearer(vendor.token)).send({ reference: batchReference, payouts: items }).expect(202);
      expect(accepted.body.data.payouts.map((p: { metadata: unknown }) => p.metadata)).toEqual([null, { a: 1 }]);
      const listed = await stack.gateway.http().get(`/api/v1/batches/${batchReference}`).set(bearer(vendor.token)).expect(200);
      expect(listed.body.data.payouts.map((p: { metadata: unknown }) => p.metadata)).toEqual([null, { a: 1 }]);
      expect((await get(items[0].reference).expect(200)).body.data.metadata).toBeNull();
    });

    it('finds references with ".", ":" and "/" when URL-encoded', async () => {
      const reference = `${uniqueReference('odd')}.v1:part/2`;
      await post(cashPayout('55', { reference })).expect(200);
      const response = await get(reference).expect(200);
      expect(response.body.data.reference).toBe(reference);
    });

    it("answers 404 for another vendor's reference, and for an unknown one", async () => {
      const request = cashPayout();
      await post(request).expect(200);
      const other = await stack.vendor({ fundCents: 100_000n, name: 'Other vendor' });
      const response = await get(request.reference, other.token).expect(404);
      expect(response.body).toEqual({ success: false, code: 'NOT_FOUND', message: FIXED_MESSAGES.NOT_FOUND, errors: {} });
      await get('never-used', other.token).expect(404);
      // The other vendor may use the same reference for its own payout.
      const own = await post(request, other.token).expect(200);
      expect(own.body.data.id).not.toBe((await get(request.reference).expect(200)).body.data.id);
    });

    it('hides delivery from a token without payouts:delivery', async () => {
      const request = cashPayout();
      const created = await post(request, vendor.readWriteToken).expect(200);
      expect(created.body.data).toMatchObject({ status: 'paid', delivery: null });
      expect((await get(request.reference, vendor.readWriteToken).expect(200)).body.data.delivery).toBeNull();
    });
  });
});
