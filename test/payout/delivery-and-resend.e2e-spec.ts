import { bearer } from '../support/vendors.js';
import { eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { FIXED_MESSAGES, cashPayout, rtcPayout, uniqueReference, voucherPayout } from './payout-requests.js';

describe('delivery and SMS resend', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;

  beforeAll(async () => {
    stack = await startPayoutStack();
    vendor = await stack.vendor({ fundCents: 1_000_000n, feePerPayoutCents: 200n });
  });
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  const http = () => stack.gateway.http();
  /** The payout as created; a provider refusal answers PROVIDER_REJECTED (issue 25), so the failed payout is read back. */
  const create = async (body: { reference: string }, token = vendor.token) => {
    const answer = await http().post('/api/v1/payouts').set(bearer(token)).send(body);
    if (answer.status === 422 && answer.body.code === 'PROVIDER_REJECTED') {
      return (await http().get(`/api/v1/payouts/${encodeURIComponent(body.reference)}`).set(bearer(token)).expect(200)).body.data;
    }
    expect(answer.status).toBe(200);
    return answer.body.data;
  };
  const delivery = (reference: string, token = vendor.token) => http().get(`/api/v1/payouts/${encodeURIComponent(reference)}/delivery`).set(bearer(token));
  const resend = (reference: string, token = vendor.token) => http().post(`/api/v1/payouts/${encodeURIComponent(reference)}/resend-sms`).set(bearer(token));
  const audits = async (payoutId: string) =>
    (await stack.dataSource.query(`SELECT token_id, channel FROM payout_delivery_reads WHERE payout_id = $1 ORDER BY id`, [payoutId])) as Array<{ token_id: string; channel: string }>;
  const waitForStatus = (reference: string, status: string) =>
    // With a token that cannot see deliveries, so waiting leaves no audit rows.
    eventually(async () => expect((await http().get(`/api/v1/payouts/${encodeURIComponent(reference)}`).set(bearer(vendor.readWriteToken)).expect(200)).body.data.status).toBe(status));

  describe('GET /payouts/{reference}/delivery', () => {
    it('returns the PIN and serial of a paid cash payout, uncached, and audits the read with the token id', async () => {
      const request = cashPayout();
      const payout = await create(request, vendor.readWriteToken);
      const response = await delivery(request.reference).expect(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.body).toEqual({
        success: true,
        data: { pin: expect.stringMatching(/^\d{5}$/), serial: expect.stringMatching(/^\d{10}$/), instructions: null, expires_at: expect.any(String) },
      });
      expect(await audits(payout.id)).toEqual([{ token_id: vendor.tokenId, channel: 'delivery_endpoint' }]);
      // The same codes every time: they are stored, not fetched again.
      expect((await delivery(request.reference).expect(200)).body.data).toEqual(response.body.data);
    });

    it('returns the voucher PIN, serial, instructions and expiry', async () => {
      const request = voucherPayout();
      await create(request, vendor.readWriteToken);
      const response = await delivery(request.reference).expect(200);
      expect(response.body.data).toEqual({ pin: expect.stringMatching(/^\d{16}$/), serial: expect.stringMatching(/^VS\d+$/), instructions: expect.any(String), expires_at: expect.any(String) });
    });

    it('needs payouts:delivery (403 without it) and works with that scope alone', async () => {
      const request = cashPayout();
      const payout = await create(request, vendor.readWriteToken);
      const denied = await delivery(request.reference, vendor.readWriteToken).expect(403);
      expect(denied.body.code).toBe('FORBIDDEN');
      const deliveryOnly = await vendor.issue(['payouts:delivery']);
      await delivery(request.reference, deliveryOnly.token).expect(200);
      expect(await audits(payout.id)).toEqual([{ token_id: deliveryOnly.id, channel: 'delivery_endpoint' }]);
    });

    it.each([
      ['pending', cashPayout('04'), 'pending'],
      ['failed', cashPayout('01'), 'failed'],
      ['reversed', voucherPayout('03'), 'reversed'],
    ])('answers PAYOUT_NOT_PAID (409) for a %s payout and audits nothing', async (_label, request, status) => {
      const payout = await create(request, vendor.readWriteToken);
      await waitForStatus(request.reference, status);
      const response = await delivery(request.reference).expect(409);
      expect(response.body).toEqual({ success: false, code: 'PAYOUT_NOT_PAID', message: FIXED_MESSAGES.PAYOUT_NOT_PAID, errors: {} });
      expect(await audits(payout.id)).toEqual([]);
    });

    it('answers the Delivery with every field null for a paid rtc_eft payout, which has no codes (issue 25), PAYOUT_NOT_PAID before', async () => {
      const request = rtcPayout();
      const payout = await create(request);
      expect((await delivery(request.reference).expect(409)).body.code).toBe('PAYOUT_NOT_PAID');
      await waitForStatus(request.reference, 'paid');
      const response = await delivery(request.reference).expect(200);
      expect(response.body).toEqual({ success: true, data: { pin: null, serial: null, instructions: null, expires_at: null } });
      expect(response.headers['cache-control']).toBe('no-store');
      expect(await audits(payout.id)).toEqual([{ token_id: vendor.tokenId, channel: 'delivery_endpoint' }]);
      // And it is never embedded either.
      expect((await http().get(`/api/v1/payouts/${request.reference}`).set(bearer(vendor.token)).expect(200)).body.data.delivery).toBeNull();
    });

    it("answers 404 for another vendor's payout and for an unknown reference", async () => {
      const request = cashPayout();
      await create(request);
      const other = await stack.vendor({ name: 'Curious vendor' });
      await delivery(request.reference, other.token).expect(404);
      await delivery(uniqueReference('nothing')).expect(404);
    });

    it('audits deliveries embedded in payout and batch responses', async () => {
      const request = cashPayout();
      const payout = await create(request);
      expect(payout.delivery).toEqual(expect.objectContaining({ pin: expect.any(String) }));
      await http().get(`/api/v1/payouts/${request.reference}`).set(bearer(vendor.token)).expect(200);
      await http().get(`/api/v1/payouts/${request.reference}`).set(bearer(vendor.readWriteToken)).expect(200);
      expect((await audits(payout.id)).map((row) => row.channel)).toEqual(['payout_response', 'payout_response']);

      const batchReference = uniqueReference('embedded');
      await http().post('/api/v1/batches').set(bearer(vendor.token)).send({ reference: batchReference, payouts: [voucherPayout()] }).expect(202);
      const batch = await eventually(async () => {
        const body = (await http().get(`/api/v1/batches/${batchReference}`).set(bearer(vendor.token)).expect(200)).body.data;
        expect(body.status).toBe('completed');
        return body;
      });
      expect(batch.payouts[0].delivery).toEqual(expect.objectContaining({ pin: expect.any(String) }));
      expect((await audits(batch.payouts[0].id)).map((row) => row.channel)).toContain('batch_response');
    });
  });

  describe('POST /payouts/{reference}/resend-sms', () => {
    it('resends up to the provider cap, then answers RATE_LIMITED with Retry-After for the 30-minute cooldown, and never creates a payout', async () => {
      const request = cashPayout();
      await create(request);
      const [{ count: payoutsBefore }] = await stack.dataSource.query(`SELECT count(*)::int AS count FROM payouts WHERE vendor_id = $1`, [vendor.vendor.id]);
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await resend(request.reference).expect(200);
        expect(response.body).toEqual({ success: true, data: null });
      }
      const limited = await resend(request.reference).expect(429);
      expect(limited.body).toEqual({ success: false, code: 'RATE_LIMITED', message: FIXED_MESSAGES.RATE_LIMITED, errors: {} });
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(1_700);
      expect(retryAfter).toBeLessThanOrEqual(1_800);
      // During the cooldown the gateway answers by itself.
      const again = await resend(request.reference).expect(429);
      expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(retryAfter);
      const outcomes = await stack.dataSource.query(
        `SELECT r.outcome FROM payout_sms_resends r JOIN payouts p ON p.id = r.payout_id WHERE p.reference = $1 AND p.vendor_id = $2 ORDER BY r.id`,
        [request.reference, vendor.vendor.id],
      );
      expect(outcomes.map((row: { outcome: string }) => row.outcome)).toEqual(['sent', 'sent', 'sent', 'rate_limited', 'rate_limited']);
      const [{ count: payoutsAfter }] = await stack.dataSource.query(`SELECT count(*)::int AS count FROM payouts WHERE vendor_id = $1`, [vendor.vendor.id]);
      expect(payoutsAfter).toBe(payoutsBefore);
    });

    it.each([
      ['rtc_eft', rtcPayout()],
      ['voucher_type_1', voucherPayout()],
    ])('answers METHOD_UNAVAILABLE for %s', async (_method, request) => {
      await create(request);
      const response = await resend(request.reference).expect(422);
      expect(response.body).toMatchObject({ success: false, code: 'METHOD_UNAVAILABLE', message: FIXED_MESSAGES.METHOD_UNAVAILABLE });
    });

    it('answers PAYOUT_NOT_PAID for a cash payout that is not paid', async () => {
      const request = cashPayout('01');
      await create(request);
      expect((await resend(request.reference).expect(409)).body.code).toBe('PAYOUT_NOT_PAID');
    });

    it('needs payouts:write and answers 404 for unknown or foreign references', async () => {
      const request = cashPayout();
      await create(request);
      const readOnly = await vendor.issue(['payouts:read', 'payouts:delivery']);
      await resend(request.reference, readOnly.token).expect(403);
      const other = await stack.vendor({ name: 'Resend stranger' });
      await resend(request.reference, other.token).expect(404);
      await resend(uniqueReference('nothing')).expect(404);
    });
  });
});
