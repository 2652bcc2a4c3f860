import { PURCHASE_ERRORS } from '#purchase';
import { startPurchaseGateway, type RunningApp } from '../support/apps.js';

/** The contract's endpoint table: method, path, ability, success status. */
const CONTRACT = [
  ['get', '/api/v1/services', 'catalogue:read', '200'],
  ['get', '/api/v1/countries', 'catalogue:read', '200'],
  ['get', '/api/v1/operators', 'catalogue:read', '200'],
  ['get', '/api/v1/products', 'catalogue:read', '200'],
  ['get', '/api/v1/products/{id}', 'catalogue:read', '200'],
  ['post', '/api/v1/lookups/mobile-number', 'lookups:read', '200'],
  ['post', '/api/v1/lookups/statement', 'lookups:read', '200'],
  ['post', '/api/v1/lookups/account', 'lookups:read', '200'],
  ['post', '/api/v1/lookups/esim-benefits', 'lookups:read', '200'],
  ['post', '/api/v1/lookups/esim-status', 'lookups:read', '200'],
  ['post', '/api/v1/quotes', 'quotes:write', '201'],
  ['get', '/api/v1/quotes/{id}', 'quotes:write', '200'],
  ['post', '/api/v1/transactions', 'transactions:write', '202'],
  ['get', '/api/v1/transactions', 'transactions:read', '200'],
  ['get', '/api/v1/transactions/{id}', 'transactions:read', '200'],
  ['get', '/api/v1/transactions/by-reference/{reference}', 'transactions:read', '200'],
  ['get', '/api/v1/transactions/{id}/fulfilment', 'fulfilment:read', '200'],
  ['get', '/api/v1/limits', 'limits:read', '200'],
  ['get', '/api/v1/reports/summary', 'reports:read', '200'],
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
    const create = document.paths['/api/v1/transactions'].post;
    expect(create.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true })]));
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['202', '409', '422', '429', '503']));
  });

  it('keeps the provider callback out of the vendor document', () => {
    expect(Object.keys(document.paths).some((path) => path.includes('provider/callback'))).toBe(false);
  });
});
