import { PURCHASE_ERRORS } from '#purchase';
import { startPurchaseGateway, type RunningApp } from '../support/apps.js';

/** The contract's endpoint table: method, path (relative to the base address), ability, success status. */
const CONTRACT = [
  ['get', '/services', 'catalogue:read', '200'],
  ['get', '/countries', 'catalogue:read', '200'],
  ['get', '/operators', 'catalogue:read', '200'],
  ['get', '/products', 'catalogue:read', '200'],
  ['get', '/products/{id}', 'catalogue:read', '200'],
  ['post', '/lookups/mobile-number', 'lookups:read', '200'],
  ['post', '/lookups/statement', 'lookups:read', '200'],
  ['post', '/lookups/account', 'lookups:read', '200'],
  ['post', '/lookups/esim-benefits', 'lookups:read', '200'],
  ['post', '/lookups/esim-status', 'lookups:read', '200'],
  ['post', '/quotes', 'quotes:write', '201'],
  ['get', '/quotes/{id}', 'quotes:write', '200'],
  ['post', '/transactions', 'transactions:write', '202'],
  ['get', '/transactions', 'transactions:read', '200'],
  ['get', '/transactions/{id}', 'transactions:read', '200'],
  ['get', '/transactions/by-reference/{reference}', 'transactions:read', '200'],
  ['get', '/transactions/{id}/fulfilment', 'fulfilment:read', '200'],
  ['get', '/limits', 'limits:read', '200'],
  ['get', '/reports/summary', 'reports:read', '200'],
] as const;

describe('purchase OpenAPI document covers the contract', () => {
  let gateway: RunningApp;
  // The parsed OpenAPI document; its shape is what these tests check.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let document: Record<string, any>;

  beforeAll(async () => {
    gateway = await startPurchaseGateway();
    document = (await gateway.http().get('/docs-json').expect(200)).body;
  });
  afterAll(() => gateway?.close());

  it("states the contract's base address: servers[0].url includes /api/v1 and every path is relative to it", () => {
    expect(document.servers?.[0]?.url).toBe('http://127.0.0.1:3000/api/v1');
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/api/'))).toEqual([]);
  });

  it.each(CONTRACT)('%s %s: ability %s, success %s, an operationId and the envelope', (method, path, ability, status) => {
    const operation = document.paths[path]?.[method];
    expect(operation).toBeDefined();
    expect(operation.operationId).toEqual(expect.any(String));
    expect(operation['x-required-abilities']).toEqual([ability]);
    const success = operation.responses[status];
    expect(success).toBeDefined();
    const data = success.content['application/json'].schema.properties.data;
    expect(data.$ref ?? data.items?.$ref).toMatch(/^#\/components\/schemas\//);
    expect(operation.responses['429'].description).toContain('API_RATE_LIMITED');
  });

  it('names every stable error code of the contract on some operation', () => {
    const text = JSON.stringify(document.paths);
    const missing = Object.keys(PURCHASE_ERRORS).filter((code) => !text.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });

  it('describes the transaction with exactly the documented fields and the Idempotency-Key header', () => {
    expect(Object.keys(document.components.schemas.Transaction.properties).sort()).toEqual(
      [
        'id', 'reference', 'status', 'product_id', 'quote_id', 'charge_minor', 'currency', 'destination_amount', 'destination_unit',
        'error_code', 'fulfilment_available', 'created_at', 'updated_at', 'completed_at', 'reversed_at',
      ].sort(),
    );
    const create = document.paths['/transactions'].post;
    expect(create.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true })]));
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['202', '409', '422', '429', '503']));
  });

  it('keeps the provider callback out of the vendor document', () => {
    expect(Object.keys(document.paths).some((path) => path.includes('provider/callback'))).toBe(false);
  });
});
