import type { ApiPromise, AutoPaginated } from './core.js';
import { PayoutClient, type PayoutBody, type PayoutWebhookDelivery, type PayoutWebhookEndpoint, type PayoutWebhookEndpointWithSecret } from './payout-client.js';
import { PurchaseClient, type PurchaseBody, type PurchaseWebhookDelivery, type PurchaseWebhookEndpoint, type PurchaseWebhookEndpointWithSecret } from './purchase-client.js';
import type { RequestOptions } from './transport.js';

// The webhook-endpoint methods are typed once by each gateway's generated `operations`: these
// assignments only compile while every client method keeps the signature it had written out.
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const payoutSignatures: [
  Exactly<PayoutClient['listWebhookEndpoints'], (options?: RequestOptions) => ApiPromise<PayoutWebhookEndpoint[]>>,
  Exactly<PayoutClient['createWebhookEndpoint'], (body: PayoutBody<'createWebhookEndpoint'>, options?: RequestOptions) => ApiPromise<PayoutWebhookEndpointWithSecret>>,
  Exactly<PayoutClient['getWebhookEndpoint'], (id: string, options?: RequestOptions) => ApiPromise<PayoutWebhookEndpoint>>,
  Exactly<PayoutClient['updateWebhookEndpoint'], (id: string, body: PayoutBody<'updateWebhookEndpoint'>, options?: RequestOptions) => ApiPromise<PayoutWebhookEndpoint>>,
  Exactly<PayoutClient['rotateWebhookSecret'], (id: string, body?: PayoutBody<'rotateWebhookSecret'>, options?: RequestOptions) => ApiPromise<PayoutWebhookEndpointWithSecret>>,
  Exactly<PayoutClient['listWebhookDeliveries'], (id: string, query?: { per_page?: number }, options?: RequestOptions) => AutoPaginated<PayoutWebhookDelivery>>,
] = [true, true, true, true, true, true];
const purchaseSignatures: [
  Exactly<PurchaseClient['listWebhookEndpoints'], (options?: RequestOptions) => ApiPromise<PurchaseWebhookEndpoint[]>>,
  Exactly<PurchaseClient['createWebhookEndpoint'], (body: PurchaseBody<'createWebhookEndpoint'>, options?: RequestOptions) => ApiPromise<PurchaseWebhookEndpointWithSecret>>,
  Exactly<PurchaseClient['getWebhookEndpoint'], (id: string, options?: RequestOptions) => ApiPromise<PurchaseWebhookEndpoint>>,
  Exactly<PurchaseClient['updateWebhookEndpoint'], (id: string, body: PurchaseBody<'updateWebhookEndpoint'>, options?: RequestOptions) => ApiPromise<PurchaseWebhookEndpoint>>,
  Exactly<PurchaseClient['rotateWebhookSecret'], (id: string, body?: PurchaseBody<'rotateWebhookSecret'>, options?: RequestOptions) => ApiPromise<PurchaseWebhookEndpointWithSecret>>,
  Exactly<PurchaseClient['listWebhookDeliveries'], (id: string, query?: { per_page?: number }, options?: RequestOptions) => AutoPaginated<PurchaseWebhookDelivery>>,
] = [true, true, true, true, true, true];

describe('webhook endpoints, shared by both clients', () => {
  function recording() {
    const requests: string[] = [];
    const fetch = async (request: Request) => {
      requests.push(`${request.method} ${new URL(request.url).pathname} ${request.method === 'GET' || request.method === 'DELETE' ? '' : await request.text()}`.trim());
      return Response.json({ data: [] }, { status: 200 });
    };
    return { requests, fetch };
  }

  it('keeps the signatures written out per client', () => {
    expect([...payoutSignatures, ...purchaseSignatures].every(Boolean)).toBe(true);
  });

  it('payout: under /api/v1, the rotate body defaults to {}', async () => {
    const { requests, fetch } = recording();
    const client = new PayoutClient({ baseUrl: 'http://127.0.0.1:3001', token: 'gwt_test_x', fetch });
    await client.listWebhookEndpoints();
    await client.getWebhookEndpoint('we_1');
    await client.deleteWebhookEndpoint('we_1');
    await client.rotateWebhookSecret('we_1');
    await client.listWebhookDeliveries('we_1', { per_page: 5 }).toArray();
    expect(requests).toEqual([
      'GET /api/v1/webhook-endpoints',
      'GET /api/v1/webhook-endpoints/we_1',
      'DELETE /api/v1/webhook-endpoints/we_1',
      'POST /api/v1/webhook-endpoints/we_1/rotate-secret {}',
      'GET /api/v1/webhook-endpoints/we_1/deliveries',
    ]);
  });

  it('purchase: under the versioned base address', async () => {
    const { requests, fetch } = recording();
    const client = new PurchaseClient({ baseUrl: 'http://127.0.0.1:3000', token: 'gwt_test_x', fetch });
    await client.listWebhookEndpoints();
    await client.updateWebhookEndpoint('we_2', { enabled: false } as PurchaseBody<'updateWebhookEndpoint'>);
    await client.rotateWebhookSecret('we_2', { overlap_seconds: 60 } as PurchaseBody<'rotateWebhookSecret'>);
    expect(requests).toEqual([
      'GET /api/v1/webhook-endpoints',
      'PATCH /api/v1/webhook-endpoints/we_2 {"enabled":false}',
      'POST /api/v1/webhook-endpoints/we_2/rotate-secret {"overlap_seconds":60}',
    ]);
  });
});
