import { randomUUID } from 'node:crypto';
import { bearer, PRODUCTS, type PurchaseStack, usePurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';

/**
 * Issue 29, input handling on the purchase gateway: 415 for a body that is not JSON, every
 * validation problem (body and Idempotency-Key) in one answer, a nesting depth limit, reserved
 * keys refused by name, the text rule on recipient-group values. Nothing is written.
 */
describe('purchase gateway input handling', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  usePurchaseStack((suite) => ({ stack, vendor } = suite), { worker: false });

  const counts = async () => {
    const [row] = await stack.db.query(
      `SELECT (SELECT count(*)::int FROM purchase_transactions WHERE vendor_id = $1) AS transactions,
              (SELECT count(*)::int FROM purchase_quotes WHERE vendor_id = $1) AS quotes,
              (SELECT count(*)::int FROM purchase_idempotency_keys WHERE vendor_id = $1) AS keys,
              (SELECT count(*)::int FROM webhook_endpoints WHERE vendor_id = $1) AS endpoints`,
      [vendor.vendor.id],
    );
    return row as Record<string, number>;
  };
  let before: Record<string, number>;
  beforeEach(async () => {
    before = await counts();
  });
  afterEach(async () => {
    expect(await counts()).toEqual(before);
  });

  const raw = (path: string, body: string, contentType = 'application/json', headers: Record<string, string> = {}) =>
    stack.gateway.http().post(path).set(bearer(vendor.token)).set(headers).set('Content-Type', contentType).send(body);
  const envelope = (code: string) => ({ success: false, message: code, error: expect.objectContaining({ code }) });

  describe('415 for a body that is not JSON', () => {
    it.each([
      ['/api/v1/quotes', 'text/plain'],
      ['/api/v1/transactions', 'text/plain'],
      ['/api/v1/transactions', 'application/x-www-form-urlencoded'],
      ['/api/v1/lookups/mobile-number', 'text/plain'],
      ['/api/v1/lookups/statement', 'application/xml'],
      ['/api/v1/webhook-endpoints', 'text/plain'],
    ])('POST %s with %s answers 415 UNSUPPORTED_MEDIA_TYPE in the purchase envelope', async (path, type) => {
      const response = await raw(path, JSON.stringify({ product_id: PRODUCTS.fixedAirtime, credit_party_identifier: { mobile_number: '27821234567' } }), type, {
        'Idempotency-Key': 'k-415',
      }).expect(415);
      expect(response.body).toEqual({ success: false, message: 'UNSUPPORTED_MEDIA_TYPE', error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    });
  });

  describe('every validation problem in one answer', () => {
    it('reports an invalid reference, quote id and Idempotency-Key together', async () => {
      const response = await raw('/api/v1/transactions', JSON.stringify({ quote_id: 'nope', reference: 'a/b' }), 'application/json', { 'Idempotency-Key': 'bad key' }).expect(422);
      expect(response.body).toEqual(envelope('VALIDATION_FAILED'));
      expect(Object.keys(response.body.error.fields).sort()).toEqual(['Idempotency-Key', 'quote_id', 'reference']);
      expect(response.body.error.fields['Idempotency-Key'].join(' ')).not.toMatch(/required/);
      expect(response.body.error.fields['Idempotency-Key'].join(' ')).toMatch(/must be 1 to 128/);
    });

    it('says the key is required only when it was not sent, with the other problems', async () => {
      const response = await raw('/api/v1/transactions', JSON.stringify({ quote_id: randomUUID(), reference: 'r'.repeat(129), extra: 1 })).expect(422);
      expect(Object.keys(response.body.error.fields).sort()).toEqual(['Idempotency-Key', 'extra', 'reference']);
      expect(response.body.error.fields['Idempotency-Key'].join(' ')).toMatch(/required/);
    });

    it('refuses an Idempotency-Key sent as a body field (it is a header)', async () => {
      const response = await raw('/api/v1/transactions', JSON.stringify({ quote_id: randomUUID(), reference: 'r-1', 'Idempotency-Key': 'k-1' }), 'application/json', {
        'Idempotency-Key': 'k-1',
      }).expect(422);
      expect(Object.keys(response.body.error.fields)).toEqual(['Idempotency-Key']);
    });
  });

  describe('nesting depth', () => {
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    it.each(['/api/v1/quotes', '/api/v1/transactions', '/api/v1/lookups/mobile-number', '/api/v1/webhook-endpoints'])(
      'refuses JSON nested 3,000 deep on %s with 422, never 500',
      async (path) => {
        const response = await raw(path, `{"sender":${deep(3000)}}`, 'application/json', { 'Idempotency-Key': 'k-deep' }).expect(422);
        expect(response.body).toEqual(envelope('VALIDATION_FAILED'));
        expect(response.body.error.fields).toEqual({ body: [expect.stringContaining('32 levels')] });
      },
    );
  });

  describe('reserved keys', () => {
    it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype'])('refuses recipient-group key %s by name', async (key) => {
      const body = `{"product_id":${PRODUCTS.fixedAirtime},"credit_party_identifier":{"mobile_number":"27821234567",${JSON.stringify(key)}:"x"}}`;
      const response = await raw('/api/v1/quotes', body).expect(422);
      expect(Object.keys(response.body.error.fields)).toEqual([`credit_party_identifier.${key}`]);
    });

    it('refuses a top-level __proto__ and pollutes nothing', async () => {
      const response = await raw('/api/v1/quotes', `{"__proto__":{"polluted":true},"product_id":${PRODUCTS.fixedAirtime},"credit_party_identifier":{"mobile_number":"27821234567"}}`).expect(
        422,
      );
      expect(Object.keys(response.body.error.fields)).toEqual(['__proto__']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('text rule', () => {
    it('refuses invisible or control characters in the product search and a statement lookup account number', async () => {
      const search = await stack.gateway.http().get('/api/v1/products?search=orb%E2%80%8Bit').set(bearer(vendor.token)).expect(422);
      expect(Object.keys(search.body.error.fields)).toEqual(['search']);
      const lookup = await stack.gateway
        .http()
        .post('/api/v1/lookups/statement')
        .set(bearer(vendor.token))
        .send({ product_id: PRODUCTS.bill, account_number: '4000\u0000123', account_qualifier: '   ' })
        .expect(422);
      expect(Object.keys(lookup.body.error.fields).sort()).toEqual(['account_number', 'account_qualifier']);
    });

    it.each([['NUL', 'Tha\u0000bo'], ['a zero-width space', 'Tha\u200bbo'], ['an unpaired surrogate', '\udc00x'], ['only whitespace', '  ']])(
      'refuses %s in a recipient-group value',
      async (_label, text) => {
        const response = await stack.gateway
          .http()
          .post('/api/v1/quotes')
          .set(bearer(vendor.token))
          .send({ product_id: PRODUCTS.fixedAirtime, credit_party_identifier: { mobile_number: '27821234567' }, sender: { first_name: text } })
          .expect(422);
        expect(Object.keys(response.body.error.fields)).toEqual(['sender']);
      },
    );
  });
});
