import { bearer } from '../support/vendors.js';
import { startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { cashPayout, recipient } from '../payout/payout-requests.js';

/**
 * Issue 29, input handling on the payout gateway: 415 for a body that is not JSON, a nesting
 * depth limit, reserved keys refused by name, one text rule for free text. Every refusal
 * writes nothing (no payout, no batch, no webhook endpoint, nothing reserved).
 */
describe('payout gateway input handling', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;

  beforeAll(async () => {
    stack = await startPayoutStack({ worker: false });
    vendor = await stack.vendor({ fundCents: 100_000n, feePerPayoutCents: 500n });
  });
  afterAll(async () => stack?.close());

  afterEach(async () => {
    const account = await stack.gateway.http().get('/api/v1/account').set(bearer(vendor.token)).expect(200);
    expect(account.body.data).toMatchObject({ available: '1000.00', reserved: '0.00' });
    const [{ payouts, batches, endpoints }] = await stack.dataSource.query(
      `SELECT (SELECT count(*)::int FROM payouts WHERE vendor_id = $1) AS payouts,
              (SELECT count(*)::int FROM payout_batches WHERE vendor_id = $1) AS batches,
              (SELECT count(*)::int FROM webhook_endpoints WHERE vendor_id = $1) AS endpoints`,
      [vendor.vendor.id],
    );
    expect({ payouts, batches, endpoints }).toEqual({ payouts: 0, batches: 0, endpoints: 0 });
  });

  const raw = (path: string, body: string, contentType = 'application/json', method: 'post' | 'patch' = 'post') =>
    stack.gateway.http()[method](path).set(bearer(vendor.token)).set('Content-Type', contentType).send(body);

  describe('415 for a body that is not JSON', () => {
    it.each([
      ['/api/v1/payouts', 'text/plain'],
      ['/api/v1/payouts', 'application/x-www-form-urlencoded'],
      ['/api/v1/batches', 'text/plain'],
      ['/api/v1/batches', 'application/xml'],
      ['/api/v1/webhook-endpoints', 'text/plain'],
      ['/api/v1/payouts/some-ref/resend-sms', 'text/plain'],
    ])('POST %s with %s answers 415 UNSUPPORTED_MEDIA_TYPE in the payout envelope', async (path, type) => {
      const response = await raw(path, JSON.stringify(cashPayout()), type).expect(415);
      expect(response.body).toEqual({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the body as application/json.', errors: {} });
    });

    it('answers 415 on PATCH of a webhook endpoint too', async () => {
      const response = await raw('/api/v1/webhook-endpoints/0b9d4e1c-7a3f-4f6e-9d21-5c8a2e7b1f40', '{"enabled":false}', 'text/plain', 'patch').expect(415);
      expect(response.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });

    it('still accepts application/json with a charset', async () => {
      const response = await raw('/api/v1/payouts', JSON.stringify({}), 'application/json; charset=utf-8').expect(422);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    });
  });

  describe('nesting depth', () => {
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

    it.each(['/api/v1/payouts', '/api/v1/batches', '/api/v1/webhook-endpoints'])('refuses JSON nested 3,000 deep on %s with 422 naming the body, never 500', async (path) => {
      const body = `{"reference":"deep-1","metadata":${deep(3000)}}`;
      const response = await raw(path, body).expect(422);
      expect(response.body).toEqual({ success: false, code: 'VALIDATION_FAILED', message: expect.any(String), errors: { body: [expect.stringContaining('32 levels')] } });
      const objects = await raw(path, `{"recipient":${deepObject(3000)}}`).expect(422);
      expect(objects.body.errors.body).toEqual([expect.stringContaining('32 levels')]);
    });

    it('accepts a real body (depth 5: batch, payouts, item, recipient, bank account) up to the limit', async () => {
      const response = await raw('/api/v1/batches', JSON.stringify({ reference: 'x', payouts: [{ recipient: { bank_account: { deeper: deep(27) } } }] })).expect(422);
      expect(response.body.errors.body).toBeUndefined();
    });
  });

  describe('one text rule for free text', () => {
    const hostile: Array<[string, string]> = [
      ['NUL', 'Tha\u0000bo'],
      ['an unpaired surrogate', 'Thabo\ud800'],
      ['a zero-width space', 'Tha\u200bbo'],
      ['a right-to-left override', '\u202eobahT'],
      ['only whitespace', '   '],
    ];

    it.each(hostile)('refuses %s in every recipient name, the bank names and metadata, all in one answer', async (_label, text) => {
      const body = {
        ...cashPayout('55', { method: 'rtc_eft', metadata: { note: text } }),
        recipient: { ...recipient('55', { middle_name: text }), first_name: text, surname: text, bank_account: { bank_name: text, account_number: '6200123455', account_name: text, branch_code: '250655' } },
      };
      const response = await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(body).expect(422);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(Object.keys(response.body.errors).sort()).toEqual(
        ['metadata', 'recipient.bank_account.account_name', 'recipient.bank_account.bank_name', 'recipient.first_name', 'recipient.middle_name', 'recipient.surname'].sort(),
      );
    });

    it('refuses the same text in a batch item and in a webhook description', async () => {
      const item = { ...cashPayout(), recipient: recipient('55', { first_name: 'Tha\u200bbo' }) };
      const batch = await stack.gateway.http().post('/api/v1/batches').set(bearer(vendor.token)).send({ reference: 'text-batch', payouts: [item] }).expect(422);
      expect(Object.keys(batch.body.errors)).toContain('payouts.0.recipient.first_name');
      const endpoint = await stack.gateway
        .http()
        .post('/api/v1/webhook-endpoints')
        .set(bearer(vendor.token))
        .send({ url: 'http://127.0.0.1:9/hook', events: ['payout.paid'], description: 'ops\u0000' })
        .expect(422);
      expect(Object.keys(endpoint.body.errors)).toContain('description');
    });

    it('still accepts names in any script, with accents and joiners between letters', async () => {
      const body = cashPayout('55', { recipient: recipient('55', { first_name: "Zoë-Nqobile", surname: "O'Brien \u0915\u094d\u200d\u0937" }) });
      const response = await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send({ ...body, amount: '0.00' }).expect(422);
      expect(Object.keys(response.body.errors)).toEqual(['amount']);
    });
  });

  describe('reserved keys', () => {
    it.each(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'])(
      'refuses metadata key %s with 422 naming the key',
      async (key) => {
        const body = JSON.stringify(cashPayout('55', { metadata: { order: '1' } })).replace('"order"', JSON.stringify(key));
        const response = await raw('/api/v1/payouts', body).expect(422);
        expect(response.body.code).toBe('VALIDATION_FAILED');
        expect(Object.keys(response.body.errors)).toEqual([`metadata.${key}`]);
      },
    );

    it('refuses a top-level __proto__ like any other unknown field, and nothing is polluted', async () => {
      const body = JSON.stringify(cashPayout()).replace(/^\{/, '{"__proto__":{"polluted":"yes","reserved":"0.00"},');
      const response = await raw('/api/v1/payouts', body).expect(422);
      expect(Object.keys(response.body.errors)).toEqual(['__proto__']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      const batch = JSON.stringify({ reference: 'b-1', payouts: [{ ...cashPayout(), recipient: recipient() }] }).replace('"recipient":{', '"recipient":{"constructor":{"name":"x"},');
      const refused = await raw('/api/v1/batches', batch).expect(422);
      expect(Object.keys(refused.body.errors)).toEqual(['payouts.0.recipient.constructor']);
    });
  });
});
