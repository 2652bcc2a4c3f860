import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'supertest';
import { CatalogueReadCache, PurchaseCatalogueService, PurchasePricingService } from '#purchase';
import { PURCHASE_ENVELOPE } from '../../apps/purchase-gateway/src/http/purchase-envelope.js';
import { bearer, PRODUCTS, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';

/**
 * A catalogue cache entry's response body is serialised once and sent again on every hit
 * (CachedResult). What a client receives must not tell a hit from a miss: the same bytes, the
 * same headers, and the bytes res.json sends for the envelope of the uncached read. After an
 * invalidation the next answer is serialised afresh from the new data.
 */
describe('purchase gateway catalogue reads: cached response bodies', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;

  beforeAll(async () => {
    stack = await startPurchaseStack({ worker: false });
    vendor = await stack.vendor();
    const deadline = Date.now() + 15_000;
    while (!cache().stats.live) {
      if (Date.now() > deadline) throw new Error('the catalogue cache never became live');
      await sleep(10);
    }
  });

  afterAll(async () => {
    await stack?.close();
  });

  const cache = () => stack.gateway.app.get(CatalogueReadCache);
  const catalogue = () => stack.gateway.app.get(PurchaseCatalogueService);
  const get = (path: string) => stack.gateway.http().get(`/api/v1${path}`).set(bearer(vendor.token));

  /** Asks until the answer comes from the cache (a read racing an earlier change's notification is not kept). */
  async function hit(path: string): Promise<Response> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const hits = cache().stats.hits;
      const response = await get(path).expect(200);
      if (cache().stats.hits > hits) return response;
      await sleep(20);
    }
    throw new Error(`${path} never came from the cache`);
  }

  /** Headers that differ between any two answers whatever their body. */
  const PER_REQUEST = ['date', 'x-request-id', 'x-ratelimit-remaining'];
  const comparable = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !PER_REQUEST.includes(name)));

  /** The body today's res.json sends for the uncached read. */
  const enveloped = (data: unknown) => JSON.stringify(PURCHASE_ENVELOPE.success(data));

  const READS: Array<[string, (vendorId: string) => Promise<unknown>]> = [
    ['/products?per_page=50', (vendorId) => catalogue().listProducts(vendorId, { page: 1, perPage: 50 })],
    [`/products/${PRODUCTS.fixedAirtime}`, (vendorId) => catalogue().getProduct(vendorId, PRODUCTS.fixedAirtime)],
    ['/services', (vendorId) => catalogue().listServices(vendorId)],
    ['/countries', (vendorId) => catalogue().listCountries(vendorId)],
    ['/operators', (vendorId) => catalogue().listOperators(vendorId)],
  ];

  it.each(READS)('GET %s: a hit answers the same bytes and headers as the miss that filled the cache', async (path, read) => {
    const misses = cache().stats.misses;
    const miss = await get(path).expect(200);
    expect(cache().stats.misses).toBe(misses + 1);

    const cached = await hit(path);

    expect(cached.text).toBe(miss.text);
    expect(comparable(cached.headers)).toEqual(comparable(miss.headers));
    expect(miss.text).toBe(enveloped(await read(vendor.vendor.id)));
    expect(miss.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(miss.headers['content-length'])).toBe(Buffer.byteLength(miss.text));
    expect(miss.headers.etag).toBeUndefined();
  });

  it('a cached answer carries the headers of an answer sent through res.json', async () => {
    const cached = await hit('/services');
    // GET /limits is not cached: its envelope goes out as an object through res.json.
    const limits = await get('/limits').expect(200);
    expect(Object.keys(cached.headers).sort()).toEqual(Object.keys(limits.headers).sort());
    const shared = (headers: Record<string, string>) => Object.fromEntries(Object.entries(comparable(headers)).filter(([name]) => name !== 'content-length'));
    expect(shared(cached.headers)).toEqual(shared(limits.headers));
  });

  it('after an invalidation the next answer is serialised from the new data, and its hits send that body', async () => {
    const productPath = `/products/${PRODUCTS.rangedAirtime}`;
    const listPath = '/products?per_page=5';
    const productBefore = await hit(productPath);
    const listBefore = await hit(listPath);

    const published = await stack.gateway.app.get(PurchasePricingService).publish(2_000);

    const productAfter = await get(productPath).expect(200);
    expect(productAfter.text).not.toBe(productBefore.text);
    expect(productAfter.body.data.price.pricing_version_id).toBe(published.id);
    expect(productAfter.text).toBe(enveloped(await catalogue().getProduct(vendor.vendor.id, PRODUCTS.rangedAirtime)));
    const listAfter = await get(listPath).expect(200);
    expect(listAfter.text).not.toBe(listBefore.text);
    expect(listAfter.text).toBe(enveloped(await catalogue().listProducts(vendor.vendor.id, { page: 1, perPage: 5 })));

    expect((await hit(productPath)).text).toBe(productAfter.text);
    expect((await hit(listPath)).text).toBe(listAfter.text);
  });
});
