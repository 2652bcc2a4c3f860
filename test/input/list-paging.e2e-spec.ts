import { bearer } from '../support/vendors.js';
import { startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { eventually } from '../support/purchase-stack.js';
import { cashPayout } from '../payout/payout-requests.js';

/** Issue 29: the webhook delivery log carries the paging metadata every list has: `{items, page, total, last_page}`. */
describe('webhook delivery log paging', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;

  beforeAll(async () => {
    stack = await startPayoutStack({ worker: false });
    vendor = await stack.vendor({ fundCents: 100_000n, feePerPayoutCents: 0n });
  });
  afterAll(async () => stack?.close());

  const get = (path: string) => stack.gateway.http().get(path).set(bearer(vendor.token));

  it('answers {items, page, total, last_page}, newest first, for empty and multi-page logs', async () => {
    const created = await stack.gateway
      .http()
      .post('/api/v1/webhook-endpoints')
      .set(bearer(vendor.token))
      .send({ url: 'http://127.0.0.1:9/hooks', events: ['payout.paid'] })
      .expect(201);
    const base = `/api/v1/webhook-endpoints/${created.body.data.id}/deliveries`;

    expect((await get(base).expect(200)).body.data).toEqual({ items: [], page: 1, total: 0, last_page: 1 });

    for (let index = 0; index < 3; index++) {
      await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout()).expect(200);
    }
    const first = await eventually(
      async () => (await get(`${base}?per_page=2`).expect(200)).body.data,
      (page) => page.total === 3,
    );
    expect(first).toEqual({ items: [expect.any(Object), expect.any(Object)], page: 1, total: 3, last_page: 2 });
    expect(first.items[0]).toMatchObject({ event_type: 'payout.paid', status: expect.any(String) });
    const second = (await get(`${base}?per_page=2&page=2`).expect(200)).body.data;
    expect(second).toEqual({ items: [expect.any(Object)], page: 2, total: 3, last_page: 2 });
    const ids = [...first.items, ...second.items].map((item: { id: string }) => item.id);
    expect(new Set(ids).size).toBe(3);
    const beyond = (await get(`${base}?per_page=2&page=5`).expect(200)).body.data;
    expect(beyond).toEqual({ items: [], page: 5, total: 3, last_page: 2 });
    expect((await get(`${base}?per_page=0`).expect(422)).body.errors).toHaveProperty('per_page');
  });
});
