import { randomUUID } from 'node:crypto';
import { PurchaseClient } from '../../packages/sdk/src/index.js';
import { eventually, PRODUCTS, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase, settle } from './purchase-helpers.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * Issue 25: where the purchase gateway answered differently from its contract. Through the real
 * HTTP surface (a listening gateway, plain fetch), with the database effects checked.
 *
 * 1. "The base address is {base_url}. It already includes the version prefix /api/v1, and every
 *    path below is relative to it": servers[0].url is that base address and `{base_url}/services`
 *    works (it answered an HTML 404 when base_url was the origin).
 * 2. The contract's codes where it names the condition: PRODUCT_UNAVAILABLE (422) for a product
 *    not enabled, VALIDATION_FAILED (422) on `quote_id` for an unknown or foreign quote; a
 *    fulfilment with nothing to hand out is the documented addition FULFILMENT_UNAVAILABLE (409);
 *    a read of an id that is not the vendor's stays 404 NOT_FOUND.
 */
describe('purchase gateway answers as its contract says (issue 25)', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  let baseUrl: string;

  beforeAll(async () => {
    stack = await startPurchaseStack();
    vendor = await stack.vendor();
    // The contract's base address: the origin followed by /api/v1 (this gateway listens on a port of its own).
    baseUrl = `${stack.gateway.url!}/api/v1`;
  }, 60_000);
  afterAll(async () => stack?.close());

  const call = async (path: string, init: { method?: string; token?: string; headers?: Record<string, string>; body?: unknown } = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(init.token === undefined ? {} : { authorization: `Bearer ${init.token}` }),
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: (await response.json().catch(() => null)) as Json };
  };

  describe('1. the base address includes /api/v1 and every path is relative to it', () => {
    it('serves every documented GET without parameters at servers[0].url + path', async () => {
      const document = (await stack.gateway.http().get('/docs-json').expect(200)).body;
      // The served document names the local stack's base address, with the version prefix.
      expect(document.servers[0].url).toBe('http://127.0.0.1:3000/api/v1');
      const plainGets = Object.entries(document.paths as Record<string, Json>)
        .filter(([path, item]) => item.get && !path.includes('{'))
        .map(([path]) => path);
      expect(plainGets).toEqual(expect.arrayContaining(['/services', '/countries', '/operators', '/products', '/limits', '/transactions', '/reports/summary']));
      for (const path of plainGets) {
        const answer = await call(path, { token: vendor.token });
        // A CSV export answers its file, as its description says; everything else the envelope.
        if (document.paths[path].get.responses['200'].content['text/csv']) {
          expect({ path, status: answer.status, contentType: answer.contentType }).toEqual({ path, status: 200, contentType: expect.stringContaining('text/csv') });
          continue;
        }
        expect({ path, status: answer.status, success: answer.body?.success }).toEqual({ path, status: 200, success: true });
        expect(answer.contentType).toContain('application/json');
      }
    });

    it('answers the README curl: {base_url}/services with the token, and 401 in the purchase envelope without it', async () => {
      const services = await call('/services', { token: vendor.token });
      expect(services.status).toBe(200);
      expect(services.body.data.length).toBeGreaterThan(0);
      expect(await call('/services')).toMatchObject({ status: 401, body: { success: false, message: 'UNAUTHENTICATED', error: { code: 'UNAUTHENTICATED' } } });
    });

    it('the SDK given that base address buys through the relative paths', async () => {
      const client = new PurchaseClient({ baseUrl, token: vendor.token });
      const quote = await client.createQuote({ product_id: PRODUCTS.pin, ...mobile('27821234566') });
      const { transaction } = await client.createTransaction({ quote_id: quote.id, reference: `base-${randomUUID()}` });
      expect(transaction.status).toBe('pending');
      const [row] = await stack.db.query(`SELECT vendor_id, quote_id FROM purchase_transactions WHERE id = $1`, [transaction.id]);
      expect(row).toEqual({ vendor_id: vendor.vendor.id, quote_id: quote.id });
    });
  });

  describe('2. purchase statuses and codes', () => {
    it('GET /products/{id}: PRODUCT_UNAVAILABLE (422) for a product not enabled for the vendor, withdrawn or unknown', async () => {
      const narrow = await stack.vendor({ enable: [PRODUCTS.pin] });
      expect((await call(`/products/${PRODUCTS.pin}`, { token: narrow.token })).status).toBe(200);
      const unavailable = { status: 422, body: { success: false, message: 'PRODUCT_UNAVAILABLE', error: { code: 'PRODUCT_UNAVAILABLE' } } };
      expect(await call(`/products/${PRODUCTS.esim}`, { token: narrow.token })).toMatchObject(unavailable);
      expect(await call('/products/99999999', { token: narrow.token })).toMatchObject(unavailable);
      // The same answer a quote for it gets: refresh the catalogue.
      expect(await call('/quotes', { method: 'POST', token: narrow.token, body: { product_id: PRODUCTS.esim, ...mobile('27821234567') } })).toMatchObject(unavailable);
      // Malformed ids are invalid input.
      expect(await call('/products/abc', { token: narrow.token })).toMatchObject({ status: 422, body: { error: { code: 'VALIDATION_FAILED', fields: { id: [expect.any(String)] } } } });
    });

    it('POST /transactions: an unknown or another vendor’s quote_id is VALIDATION_FAILED (422) on quote_id; nothing is written', async () => {
      const stranger = await stack.vendor();
      const theirs = await call('/quotes', { method: 'POST', token: vendor.token, body: { product_id: PRODUCTS.pin, ...mobile('27821234567') } });
      expect(theirs.status).toBe(201);
      const counts = async () =>
        (
          await stack.db.query(
            `SELECT (SELECT count(*) FROM purchase_transactions WHERE vendor_id = $1)::int AS transactions,
                    (SELECT count(*) FROM purchase_idempotency_keys WHERE vendor_id = $1)::int AS keys,
                    (SELECT COALESCE(sum(used_cents), 0) FROM purchase_daily_allowances WHERE vendor_id = $1)::int AS used`,
            [stranger.vendor.id],
          )
        )[0];
      const before = await counts();
      const buy = (quoteId: string) =>
        call('/transactions', { method: 'POST', token: stranger.token, headers: { 'idempotency-key': `key-${randomUUID()}` }, body: { quote_id: quoteId, reference: `ref-${randomUUID()}` } });
      const foreign = await buy(theirs.body.data.id);
      const unknown = await buy(randomUUID());
      expect(foreign).toMatchObject({ status: 422, body: { success: false, message: 'VALIDATION_FAILED', error: { code: 'VALIDATION_FAILED', fields: { quote_id: [expect.any(String)] } } } });
      // Indistinguishable: another vendor's quote does not leak its existence.
      expect(unknown).toEqual(foreign);
      expect(await counts()).toEqual(before);
      // The owner's quote is untouched and still buys.
      const [quoteRow] = await stack.db.query(`SELECT used_at FROM purchase_quotes WHERE id = $1`, [theirs.body.data.id]);
      expect(quoteRow.used_at).toBeNull();
    });

    it('GET /transactions/{id}/fulfilment: FULFILMENT_UNAVAILABLE (409) for the vendor’s own purchase with nothing to deliver, no audit; 404 for another vendor’s', async () => {
      const airtime = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234577') });
      const reads = async (id: string) => (await stack.db.query(`SELECT count(*)::int AS n FROM purchase_fulfilment_reads WHERE transaction_id = $1`, [id]))[0].n;
      const unavailable = { status: 409, body: { success: false, message: 'FULFILMENT_UNAVAILABLE', error: { code: 'FULFILMENT_UNAVAILABLE' } } };
      // Completed without delivery data (airtime), and a PIN purchase not completed yet or failed.
      await settle(stack, vendor, airtime.transaction.id, ['completed']);
      expect(await call(`/transactions/${airtime.transaction.id}/fulfilment`, { token: vendor.token })).toMatchObject(unavailable);
      const declined = await purchase(stack, vendor, { product_id: PRODUCTS.pin, ...mobile('27821234501') });
      await settle(stack, vendor, declined.transaction.id, ['failed']);
      expect(await call(`/transactions/${declined.transaction.id}/fulfilment`, { token: vendor.token })).toMatchObject(unavailable);
      expect(await reads(airtime.transaction.id)).toBe(0);
      expect(await reads(declined.transaction.id)).toBe(0);

      // A completed PIN purchase hands out its PIN, once audited; to another vendor it does not exist.
      const pin = await purchase(stack, vendor, { product_id: PRODUCTS.pin, ...mobile('27821234578') });
      await settle(stack, vendor, pin.transaction.id, ['completed']);
      await eventually(() => call(`/transactions/${pin.transaction.id}`, { token: vendor.token }), (answer) => answer.body.data.fulfilment_available === true);
      expect((await call(`/transactions/${pin.transaction.id}/fulfilment`, { token: vendor.token })).status).toBe(200);
      expect(await reads(pin.transaction.id)).toBe(1);
      const stranger = await stack.vendor();
      const notFound = { status: 404, body: { success: false, message: 'NOT_FOUND', error: { code: 'NOT_FOUND' } } };
      expect(await call(`/transactions/${pin.transaction.id}/fulfilment`, { token: stranger.token })).toMatchObject(notFound);
      expect(await call(`/transactions/${randomUUID()}/fulfilment`, { token: stranger.token })).toMatchObject(notFound);
      expect(await reads(pin.transaction.id)).toBe(1);
    }, 60_000);
  });
});
