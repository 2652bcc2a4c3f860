import { bearer, PRODUCTS, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';

describe('purchase catalogue, pricing and quotes', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  let narrowVendor: TestVendor;

  beforeAll(async () => {
    stack = await startPurchaseStack();
    vendor = await stack.vendor();
    narrowVendor = await stack.vendor({ enable: [PRODUCTS.fixedAirtime, PRODUCTS.pin], name: 'Narrow vendor' });
  });

  afterAll(async () => {
    await stack?.close();
  });

  const get = (path: string, token = vendor.token) => stack.gateway.http().get(`/api/v1${path}`).set(bearer(token));
  const post = (path: string, body: unknown, token = vendor.token) => stack.gateway.http().post(`/api/v1${path}`).set(bearer(token)).send(body as object);

  describe('catalogue sync', () => {
    it('imported at least 3 countries, 6 operators and 40 products from the provider', async () => {
      const [{ countries }] = await stack.db.query(`SELECT count(*)::int AS countries FROM purchase_countries`);
      const [{ operators }] = await stack.db.query(`SELECT count(*)::int AS operators FROM purchase_operators`);
      const [{ products }] = await stack.db.query(`SELECT count(*)::int AS products FROM purchase_products WHERE active`);
      expect(countries).toBeGreaterThanOrEqual(3);
      expect(operators).toBeGreaterThanOrEqual(6);
      expect(products).toBeGreaterThanOrEqual(40);
    });
  });

  describe('scoped discovery', () => {
    it('lists only services, countries and operators of the vendor’s enabled products', async () => {
      const services = await get('/services', narrowVendor.token).expect(200);
      expect(services.body.data.map((service: { id: number }) => service.id).sort()).toEqual([1, 3]);
      const countries = await get('/countries', narrowVendor.token).expect(200);
      expect(countries.body.data).toEqual([{ iso_code: 'ZAF', name: 'South Africa', currency: 'ZAR' }]);
      const operators = await get('/operators', narrowVendor.token).expect(200);
      expect(operators.body.data).toEqual([{ id: 101, name: 'Vodacom ZA', country_iso_code: 'ZAF' }]);

      const all = await get('/countries').expect(200);
      expect(all.body.data.map((country: { iso_code: string }) => country.iso_code)).toEqual(['KEN', 'NGA', 'ZAF']);
    });

    it('paginates products with page, total and last_page and never shows wholesale', async () => {
      const first = await get('/products?per_page=10').expect(200);
      expect(first.body).toMatchObject({ success: true, message: 'OK' });
      const { items, page, total, last_page } = first.body.data;
      expect(page).toBe(1);
      expect(items).toHaveLength(10);
      expect(last_page).toBe(Math.ceil(total / 10));
      const seen = new Set<number>();
      for (let pageNumber = 1; pageNumber <= last_page; pageNumber++) {
        const response = await get(`/products?per_page=10&page=${pageNumber}`).expect(200);
        response.body.data.items.forEach((product: { id: number }) => seen.add(product.id));
      }
      expect(seen.size).toBe(total);
      expect(JSON.stringify(first.body)).not.toMatch(/wholesale/i);
    });

    it('shows the vendor price from the published pricing version, benefits and requirements', async () => {
      const response = await get(`/products/${PRODUCTS.pin}`).expect(200);
      const product = response.body.data;
      const [price] = await stack.db.query(
        `SELECT vendor_price_cents::int AS cents, pricing_version_id FROM purchase_pricing_version_prices WHERE product_id = $1 ORDER BY pricing_version_id DESC LIMIT 1`,
        [PRODUCTS.pin],
      );
      expect(product).toMatchObject({
        id: PRODUCTS.pin,
        type: 'fixed',
        fulfilment: 'pin',
        destination_amount: '12.00',
        price: { charge_minor: price.cents, currency: 'ZAR', pricing_version_id: price.pricing_version_id },
        benefits: [{ type: 'CREDITS', unit: 'ZAR', amount: '12.00' }],
      });
      expect(product.requirements.credit_party_identifier).toEqual([['mobile_number']]);
      expect(product.requirements.sender).toEqual([]);
      const esim = await get(`/products/${PRODUCTS.esim}`).expect(200);
      expect(esim.body.data.requirements.credit_party_identifier).toEqual([['mobile_number'], ['account_number']]);
    });

    it('filters by search, country, operator and service', async () => {
      const nigeria = await get('/products?country=NGA&per_page=100').expect(200);
      expect(nigeria.body.data.total).toBeGreaterThan(0);
      expect(nigeria.body.data.items.every((product: { country_iso_code: string }) => product.country_iso_code === 'NGA')).toBe(true);
      const byOperator = await get('/products?operator_id=301&per_page=100').expect(200);
      expect(byOperator.body.data.items.every((product: { operator: { id: number } }) => product.operator.id === 301)).toBe(true);
      const pins = await get('/products?service_id=3&per_page=100').expect(200);
      expect(pins.body.data.items.every((product: { fulfilment: string }) => product.fulfilment === 'pin')).toBe(true);
      const search = await get('/products?search=orbit').expect(200);
      expect(search.body.data.total).toBe(3);
      const narrow = await get('/products?per_page=100', narrowVendor.token).expect(200);
      expect(narrow.body.data.items.map((product: { id: number }) => product.id)).toEqual([PRODUCTS.fixedAirtime, PRODUCTS.pin]);
    });

    it.each([
      ['page=0'],
      ['per_page=0'],
      ['per_page=101'],
      ['page=abc'],
      ['country=ZA'],
      ['operator_id=x'],
    ])('refuses %s with VALIDATION_FAILED', async (query) => {
      const response = await get(`/products?${query}`).expect(422);
      expect(response.body.error.code).toBe('VALIDATION_FAILED');
      expect(Object.keys(response.body.error.fields)).toHaveLength(1);
    });

    it('answers PRODUCT_UNAVAILABLE (422) for a product not enabled for the vendor or unknown, VALIDATION_FAILED for a malformed id', async () => {
      const unavailable = { success: false, message: 'PRODUCT_UNAVAILABLE', error: { code: 'PRODUCT_UNAVAILABLE' } };
      expect((await get(`/products/${PRODUCTS.esim}`, narrowVendor.token).expect(422)).body).toEqual(unavailable);
      expect((await get('/products/99999999').expect(422)).body).toEqual(unavailable);
      expect((await get('/products/abc').expect(422)).body.error).toMatchObject({ code: 'VALIDATION_FAILED', fields: { id: [expect.any(String)] } });
    });
  });

  describe('quotes', () => {
    const mobile = { credit_party_identifier: { mobile_number: '27821234567' } };

    it('quotes a fixed product at the published price, valid five minutes', async () => {
      const product = (await get(`/products/${PRODUCTS.fixedAirtime}`)).body.data;
      const before = Date.now();
      const response = await post('/quotes', { product_id: PRODUCTS.fixedAirtime, ...mobile }).expect(201);
      const quote = response.body.data;
      expect(quote).toMatchObject({
        product_id: PRODUCTS.fixedAirtime,
        pricing_version_id: product.price.pricing_version_id,
        charge_minor: product.price.charge_minor,
        currency: 'ZAR',
        destination_amount: '10.00',
        destination_unit: 'ZAR',
        unused_budget_minor: 0,
      });
      const expiresIn = new Date(quote.expires_at).getTime() - before;
      expect(expiresIn).toBeGreaterThan(295_000);
      expect(expiresIn).toBeLessThan(305_000);
      const [row] = await stack.db.query(`SELECT vendor_id, charge_cents::int AS charge FROM purchase_quotes WHERE id = $1`, [quote.id]);
      expect(row).toEqual({ vendor_id: vendor.vendor.id, charge: quote.charge_minor });
      const again = await get(`/quotes/${quote.id}`).expect(200);
      expect(again.body.data).toEqual(quote);
    });

    it('quotes a ranged product by exact amount and by budget', async () => {
      const byAmount = await post('/quotes', { product_id: PRODUCTS.rangedAirtime, destination_amount: '25.00', ...mobile }).expect(201);
      // 25 × 0.965 = 24.125 → 2413 cents wholesale; 5 % margin 120.65 → 121.
      expect(byAmount.body.data).toMatchObject({ destination_amount: '25.00', charge_minor: 2534, unused_budget_minor: 0 });
      expect(byAmount.body.data.benefits).toEqual([{ type: 'CREDITS', unit: 'ZAR', amount: '25.00' }]);

      const byBudget = await post('/quotes', { product_id: PRODUCTS.rangedAirtime, budget_minor: 2600, ...mobile }).expect(201);
      expect(byBudget.body.data.destination_amount).toBe('25.00');
      expect(byBudget.body.data.charge_minor + byBudget.body.data.unused_budget_minor).toBe(2600);
    });

    it.each([
      ['an amount below the range', { destination_amount: '4.00' }, 'DESTINATION_AMOUNT_INVALID'],
      ['an amount off the step', { destination_amount: '5.50' }, 'DESTINATION_AMOUNT_INVALID'],
      ['a budget below the minimum', { budget_minor: 100 }, 'BUDGET_INSUFFICIENT'],
      ['both amount and budget', { destination_amount: '5.00', budget_minor: 1000 }, 'VALIDATION_FAILED'],
      ['neither amount nor budget', {}, 'VALIDATION_FAILED'],
      ['a non-decimal amount', { destination_amount: '1e3' }, 'VALIDATION_FAILED'],
      ['a zero budget', { budget_minor: 0 }, 'VALIDATION_FAILED'],
    ])('refuses a ranged quote with %s', async (_label, amount, code) => {
      const response = await post('/quotes', { product_id: PRODUCTS.rangedAirtime, ...amount, ...mobile }).expect(422);
      expect(response.body.error.code).toBe(code);
    });

    it('refuses an amount on a fixed product', async () => {
      const response = await post('/quotes', { product_id: PRODUCTS.fixedAirtime, destination_amount: '10.00', ...mobile }).expect(422);
      expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', fields: { destination_amount: expect.any(Array) } });
    });

    it('names the missing recipient fields, single set or alternatives', async () => {
      const single = await post('/quotes', { product_id: PRODUCTS.fixedAirtime }).expect(422);
      expect(single.body.error).toEqual({
        code: 'VALIDATION_FAILED',
        fields: { 'credit_party_identifier.mobile_number': ['is required by this product'] },
      });
      const alternatives = await post('/quotes', { product_id: PRODUCTS.esim, credit_party_identifier: { email: 'a@b.c' } }).expect(422);
      expect(alternatives.body.error.fields).toEqual({ credit_party_identifier: ['must hold one of these field sets: mobile_number | account_number'] });
      await post('/quotes', { product_id: PRODUCTS.esim, credit_party_identifier: { account_number: '8927000000000000001' } }).expect(201);
    });

    it('refuses malformed recipient groups and unknown properties', async () => {
      const nested = await post('/quotes', { product_id: PRODUCTS.fixedAirtime, credit_party_identifier: { mobile_number: 27821234567 } }).expect(422);
      expect(nested.body.error.fields).toHaveProperty('credit_party_identifier');
      const extra = await post('/quotes', { product_id: PRODUCTS.fixedAirtime, ...mobile, wholesale: 1 }).expect(422);
      expect(extra.body.error.fields).toHaveProperty('wholesale');
    });

    it('answers PRODUCT_UNAVAILABLE for a product not enabled for the vendor', async () => {
      const response = await post('/quotes', { product_id: PRODUCTS.esim, ...mobile }, narrowVendor.token).expect(422);
      expect(response.body).toEqual({ success: false, message: 'PRODUCT_UNAVAILABLE', error: { code: 'PRODUCT_UNAVAILABLE' } });
    });

    it('keeps quotes private: another vendor’s quote id answers 404', async () => {
      const quote = (await post('/quotes', { product_id: PRODUCTS.fixedAirtime, ...mobile }).expect(201)).body.data;
      await get(`/quotes/${quote.id}`, narrowVendor.token).expect(404);
      await get('/quotes/not-a-uuid').expect(404);
    });

    it('never calls the provider’s transaction endpoints', async () => {
      const quote = (await post('/quotes', { product_id: PRODUCTS.pin, ...mobile }).expect(201)).body.data;
      expect(await stack.sandbox.creates(quote.id)).toBe(0);
      const summary = await fetch(`${stack.sandbox.url}/dvs/v1/transactions`, { headers: { 'x-api-key': 'sandbox-key' } });
      expect(await summary.json()).toEqual([]);
    });
  });
});
