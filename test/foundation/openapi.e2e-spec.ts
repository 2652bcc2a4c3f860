import { startPayoutGateway, startPurchaseGateway, type RunningApp } from '../support/apps.js';

type Operation = { security?: unknown[]; 'x-required-abilities'?: string[]; operationId?: string };

/** Routes that are public on purpose; every other operation must declare its abilities. */
const PUBLIC_OPERATIONS = new Set(['POST /api/v1/provider/callback/{token}']);

describe.each([
  ['purchase', startPurchaseGateway],
  ['payout', startPayoutGateway],
])('%s gateway OpenAPI document', (_name, start) => {
  let gateway: RunningApp;

  beforeAll(async () => {
    gateway = await start();
  });
  afterAll(() => gateway?.close());

  it('is served at /docs-json as OpenAPI 3, version 1.0.0, with bearer auth', async () => {
    const { body } = await gateway.http().get('/docs-json').expect(200);
    expect(body.openapi).toMatch(/^3\./);
    expect(body.info.version).toBe('1.0.0');
    expect(body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents the abilities or scopes of every vendor operation', async () => {
    const { body } = await gateway.http().get('/docs-json').expect(200);
    const undeclared: string[] = [];
    for (const [path, operations] of Object.entries(body.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        const key = `${method.toUpperCase()} ${path}`;
        if (PUBLIC_OPERATIONS.has(key)) continue;
        if (!operation.security?.length || !operation['x-required-abilities']?.length) undeclared.push(key);
      }
    }
    expect(undeclared).toEqual([]);
  });

  it('serves Swagger UI at /docs', async () => {
    const response = await gateway.http().get('/docs/').expect(200);
    expect(response.text).toContain('swagger-ui');
  });
});
