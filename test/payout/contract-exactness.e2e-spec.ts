import { startPayoutGateway, type RunningApp } from '../support/apps.js';
import { eventually, PAYOUT_SANDBOX_KEY, PAYOUT_STACK_CONFIG, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { cashPayout, FIXED_MESSAGES, recipient, rtcPayout, voucherPayout } from './payout-requests.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

/**
 * Issue 25: where the payout gateway answered differently from its contract, through the real
 * HTTP surface (a listening gateway, plain fetch), with the money effects read from PostgreSQL.
 *
 * 3. "PROVIDER_REJECTED — the provider refuses the payout": the error envelope, the payout still
 *    recorded `failed` with its hold released, the same answer on a replay.
 * 4. AMOUNT_INCREMENT_INVALID whenever the amount is off the method's step, every field's
 *    messages in `errors`.
 * 5. The general throttle has its own code, API_RATE_LIMITED; RATE_LIMITED stays the SMS resend
 *    cooldown's.
 * 6. A paid rtc_eft payout ("rtc_eft has no codes") answers the Delivery with its fields null.
 */
describe('payout gateway answers as its contract says (issue 25)', () => {
  let stack: PayoutStack;

  beforeAll(async () => {
    stack = await startPayoutStack({ listen: true });
  }, 60_000);
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  const call = async (baseUrl: string, path: string, token: string, init: { method?: string; body?: unknown } = {}): Promise<Answer> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  };
  const api = (path: string, token: string, init?: { method?: string; body?: unknown }) => call(stack.gateway.url!, path, token, init);
  const pay = (vendor: PayoutTestVendor, body: unknown) => api('/api/v1/payouts', vendor.token, { method: 'POST', body });
  const account = async (vendorId: string) =>
    (await stack.dataSource.query(`SELECT available_cents::text AS available, reserved_cents::text AS reserved FROM payout_accounts WHERE vendor_id = $1`, [vendorId]))[0];
  const payoutRow = async (vendorId: string, reference: string) =>
    (await stack.dataSource.query(`SELECT id, status, status_reason, merchant_reference FROM payouts WHERE vendor_id = $1 AND reference = $2`, [vendorId, reference]))[0];
  const ledgerKinds = async (payoutId: string) =>
    (await stack.dataSource.query(`SELECT kind FROM ledger_entries WHERE payout_id = $1 ORDER BY id`, [payoutId])).map((row: { kind: string }) => row.kind);
  const payoutCount = async (vendorId: string) => (await stack.dataSource.query(`SELECT count(*)::int AS n FROM payouts WHERE vendor_id = $1`, [vendorId]))[0].n as number;

  describe('3. a provider refusal answers PROVIDER_REJECTED', () => {
    it.each([
      ['bank_a_instant_money', () => cashPayout('01')],
      ['rtc_eft', () => rtcPayout('01')],
      ['voucher_type_1', () => voucherPayout('01')],
    ])('%s: 422 PROVIDER_REJECTED in the payout envelope; the payout is failed with its hold released; a replay answers the same', async (_method, build) => {
      const vendor = await stack.vendor({ fundCents: 1_000_000n, feePerPayoutCents: 250n });
      const before = await account(vendor.vendor.id);
      const request = build();
      const refused = await pay(vendor, request);
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({ success: false, code: 'PROVIDER_REJECTED', message: FIXED_MESSAGES.PROVIDER_REJECTED, errors: {} });
      expect(refused.headers.get('idempotent-replayed')).toBeNull();

      // The record exists, failed, and the hold came back: reserve, then release, nothing settled.
      const row = await payoutRow(vendor.vendor.id, request.reference);
      expect(row).toMatchObject({ status: 'failed', status_reason: 'provider_rejected' });
      expect(await ledgerKinds(row.id)).toEqual(['reserve', 'release']);
      expect(await account(vendor.vendor.id)).toEqual(before);
      const read = await api(`/api/v1/payouts/${encodeURIComponent(request.reference)}`, vendor.token);
      expect(read.status).toBe(200);
      expect(read.body.data).toMatchObject({ id: row.id, status: 'failed', status_reason: 'provider_rejected', paid_at: null, delivery: null });

      // The same reference and payload: the same answer, no second submission, no money moved.
      const replay = await pay(vendor, request);
      expect({ status: replay.status, body: replay.body }).toEqual({ status: refused.status, body: refused.body });
      expect(await stack.submissions(row.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
      expect(await ledgerKinds(row.id)).toEqual(['reserve', 'release']);
      expect(await account(vendor.vendor.id)).toEqual(before);
      // A changed payload under that reference is still a conflict.
      expect((await pay(vendor, { ...request, amount: request.method === 'voucher_type_1' ? '60.01' : '300.00' })).body.code).toBe('REFERENCE_CONFLICT');
    });

    it('concurrent identical requests all answer PROVIDER_REJECTED, from one submission, with one reserve and one release', async () => {
      const vendor = await stack.vendor({ fundCents: 1_000_000n, feePerPayoutCents: 250n });
      const before = await account(vendor.vendor.id);
      const request = cashPayout('01');
      const answers = await Promise.all(Array.from({ length: 8 }, () => pay(vendor, request)));
      expect(answers.map((answer) => `${answer.status} ${answer.body.code}`)).toEqual(Array.from({ length: 8 }, () => '422 PROVIDER_REJECTED'));
      const row = await payoutRow(vendor.vendor.id, request.reference);
      expect(row).toMatchObject({ status: 'failed', status_reason: 'provider_rejected' });
      expect(await ledgerKinds(row.id)).toEqual(['reserve', 'release']);
      expect(await payoutCount(vendor.vendor.id)).toBe(1);
      expect(await stack.submissions(row.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
      expect(await account(vendor.vendor.id)).toEqual(before);
    });

    it('a paid payout still answers 200 with the payout (the verdict), a pending one too', async () => {
      const vendor = await stack.vendor();
      expect((await pay(vendor, cashPayout('55'))).body).toMatchObject({ success: true, data: { status: 'paid' } });
      expect((await pay(vendor, rtcPayout('55'))).body).toMatchObject({ success: true, data: { status: 'pending' } });
    });
  });

  describe('4. AMOUNT_INCREMENT_INVALID whenever the amount is off the step', () => {
    it('with another field wrong, or the amount also out of range: AMOUNT_INCREMENT_INVALID, every field’s messages, nothing reserved', async () => {
      const vendor = await stack.vendor();
      const before = await account(vendor.vendor.id);
      const withPhone = await pay(vendor, cashPayout('55', { amount: '155.00', recipient: recipient('55', { phone: '0821234567' }) }));
      expect(withPhone.status).toBe(422);
      expect(withPhone.body).toEqual({
        success: false,
        code: 'AMOUNT_INCREMENT_INVALID',
        message: FIXED_MESSAGES.AMOUNT_INCREMENT_INVALID,
        errors: { amount: [expect.stringContaining('multiple of 10.00')], 'recipient.phone': [expect.any(String)] },
      });
      const aboveMaximum = await pay(vendor, cashPayout('55', { amount: '3005.00' }));
      expect(aboveMaximum.body.code).toBe('AMOUNT_INCREMENT_INVALID');
      expect(aboveMaximum.body.errors.amount).toEqual(expect.arrayContaining([expect.stringContaining('from 10.00 to 3000.00'), expect.stringContaining('multiple of 10.00')]));
      const batch = await api('/api/v1/batches', vendor.token, {
        method: 'POST',
        body: { reference: `inc-batch-${Date.now()}`, payouts: [cashPayout('55', { amount: '155.00' }), cashPayout('55', { recipient: recipient('55', { phone: 'x' }) })] },
      });
      expect(batch.status).toBe(422);
      expect(batch.body.code).toBe('AMOUNT_INCREMENT_INVALID');
      expect(Object.keys(batch.body.errors).sort()).toEqual(['payouts.0.amount', 'payouts.1.recipient.phone']);
      // Without an increment problem the other problems keep VALIDATION_FAILED.
      expect((await pay(vendor, cashPayout('55', { amount: '150.00', recipient: recipient('55', { phone: '0821234567' }) }))).body.code).toBe('VALIDATION_FAILED');
      expect(await payoutCount(vendor.vendor.id)).toBe(0);
      expect(await account(vendor.vendor.id)).toEqual(before);
    });
  });

  describe('5. the general throttle and the SMS cooldown have different codes', () => {
    let limited: RunningApp;

    beforeAll(async () => {
      limited = await startPayoutGateway({
        config: { ...PAYOUT_STACK_CONFIG, PAYOUT_PROVIDER_BASE_URL: stack.sandboxUrl, PAYOUT_PROVIDER_API_KEY: PAYOUT_SANDBOX_KEY, RATE_LIMIT_READ_PER_MINUTE: '2', RATE_LIMIT_WRITE_PER_MINUTE: '50' },
        listen: true,
      });
    });
    afterAll(async () => limited?.close());

    it('the per-token throttle answers 429 API_RATE_LIMITED; a resend during the SMS cooldown answers 429 RATE_LIMITED', async () => {
      // Fixed one-minute windows: start well inside one so the reads cannot straddle two.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
      const vendor = await stack.vendor();
      for (let read = 0; read < 2; read++) expect((await call(limited.url!, '/api/v1/account', vendor.token)).status).toBe(200);
      const throttled = await call(limited.url!, '/api/v1/account', vendor.token);
      expect(throttled.status).toBe(429);
      expect(throttled.body).toEqual({ success: false, code: 'API_RATE_LIMITED', message: FIXED_MESSAGES.API_RATE_LIMITED, errors: {} });
      expect(Number(throttled.headers.get('retry-after'))).toBeLessThanOrEqual(60);

      const request = cashPayout('55');
      expect((await call(limited.url!, '/api/v1/payouts', vendor.token, { method: 'POST', body: request })).body.data.status).toBe('paid');
      const resend = () => call(limited.url!, `/api/v1/payouts/${encodeURIComponent(request.reference)}/resend-sms`, vendor.token, { method: 'POST' });
      for (let attempt = 0; attempt < 3; attempt++) expect((await resend()).status).toBe(200);
      const cooldown = await resend();
      expect(cooldown.status).toBe(429);
      expect(cooldown.body).toEqual({ success: false, code: 'RATE_LIMITED', message: FIXED_MESSAGES.RATE_LIMITED, errors: {} });
      expect(Number(cooldown.headers.get('retry-after'))).toBeGreaterThan(1_700);
    });

    it('the document lists API_RATE_LIMITED under 429 of every operation and RATE_LIMITED only where the SMS cooldown applies', async () => {
      const document = (await (await fetch(`${limited.url}/docs-json`)).json()) as Json;
      const operations = Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
        ['get', 'post', 'patch', 'delete'].filter((method) => item[method]).map((method) => ({ key: `${method.toUpperCase()} ${path}`, responses: item[method].responses })),
      );
      const codes429 = (responses: Json) => responses['429']?.content['application/json'].schema.allOf[1].properties.code.enum as string[];
      expect(operations.filter(({ responses }) => !codes429(responses)?.includes('API_RATE_LIMITED')).map(({ key }) => key)).toEqual([]);
      expect(operations.filter(({ responses }) => codes429(responses)?.includes('RATE_LIMITED')).map(({ key }) => key)).toEqual(['POST /api/v1/payouts/{reference}/resend-sms']);
    });
  });

  describe('6. delivery of a paid rtc_eft payout', () => {
    it('answers the Delivery with every field null (audited), and PAYOUT_NOT_PAID before it is paid', async () => {
      const vendor = await stack.vendor();
      const request = rtcPayout('55');
      const created = await pay(vendor, request);
      expect(created.body.data).toMatchObject({ status: 'pending', delivery: null });
      const delivery = () => api(`/api/v1/payouts/${encodeURIComponent(request.reference)}/delivery`, vendor.token);
      const early = await delivery();
      if (early.status !== 200) expect(early.body.code).toBe('PAYOUT_NOT_PAID');
      await eventually(async () => expect((await payoutRow(vendor.vendor.id, request.reference)).status).toBe('paid'));
      const paid = await delivery();
      expect(paid.status).toBe(200);
      expect(paid.body).toEqual({ success: true, data: { pin: null, serial: null, instructions: null, expires_at: null } });
      expect(paid.headers.get('cache-control')).toBe('no-store');
      const audits = await stack.dataSource.query(`SELECT token_id, channel FROM payout_delivery_reads WHERE payout_id = $1`, [created.body.data.id]);
      expect(audits).toEqual([{ token_id: vendor.tokenId, channel: 'delivery_endpoint' }]);
    }, 60_000);
  });
});
