import { setTimeout as sleep } from 'node:timers/promises';
import { TokenAuthenticationCache, TokenService } from '#auth';
import { ChangeNotifications } from '#database';
import { CatalogueReadCache, PurchaseCatalogueService, PurchasePricingService } from '#purchase';
import { startPurchaseGateway, type RunningApp } from '../support/apps.js';
import { bearer, CALLBACK_TOKEN, PRODUCTS, SANDBOX_API_KEY, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import { testConfig } from '../support/test-config.js';
import type { TestVendor } from '../support/vendors.js';

/**
 * The gateway's in-process caches (token lookup, catalogue reads) are exact: a change committed by
 * any process is seen on the very next request, by this gateway and by a second one. Each test
 * first shows the cache serving a hit (so it would serve the old answer if invalidation were
 * missing), then changes, then asks once, with no waiting in between.
 */
describe('purchase gateway read caches', () => {
  let stack: PurchaseStack;
  /** A second gateway on the same database: the changes are made through the first. */
  let other: RunningApp;
  let otherNotifications: ChangeNotifications;
  let vendor: TestVendor;

  const OTHER_LISTENER = 'purchase-gateway-b-listener';

  beforeAll(async () => {
    stack = await startPurchaseStack({ worker: false });
    // The second gateway's listener reconnects slowly, so the test sees it disconnected.
    otherNotifications = new ChangeNotifications({ url: testConfig().DATABASE_URL, applicationName: OTHER_LISTENER, reconnectDelayMs: 3_000 });
    other = await startPurchaseGateway({
      config: { PURCHASE_PROVIDER_BASE_URL: stack.sandbox.url, PURCHASE_PROVIDER_API_KEY: SANDBOX_API_KEY, CALLBACK_TOKEN },
      overrides: [{ provide: ChangeNotifications, useValue: otherNotifications }],
    });
    vendor = await stack.vendor();
    await Promise.all([untilLive(stack.gateway), untilLive(other)]);
  });

  afterAll(async () => {
    await other?.close();
    await otherNotifications?.onApplicationShutdown();
    await stack?.close();
  });

  const get = (gateway: RunningApp, path: string, token = vendor.token) => gateway.http().get(`/api/v1${path}`).set(bearer(token));
  const tokenCache = (gateway: RunningApp) => gateway.app.get(TokenAuthenticationCache);
  const catalogueCache = (gateway: RunningApp) => gateway.app.get(CatalogueReadCache);

  /** Waits for the LISTEN connection at start-up (not for an invalidation: those are never waited for). */
  async function untilLive(gateway: RunningApp, live = true): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (tokenCache(gateway).stats.live !== live || catalogueCache(gateway).stats.live !== live) {
      if (Date.now() > deadline) throw new Error(`caches never became ${live ? 'live' : 'bypassed'}`);
      await sleep(10);
    }
  }

  /**
   * Asks until an answer comes from the cache, so the next answer would be the cached one if no
   * invalidation came. (A read racing the notification of an earlier change, e.g. the token's own
   * issue, is not kept: that is the cache being careful, hence the few tries.)
   */
  async function cached(gateway: RunningApp, path: string, token = vendor.token) {
    const catalogueRead = !path.startsWith('/transactions');
    for (let attempt = 0; attempt < 20; attempt++) {
      const before = { tokens: tokenCache(gateway).stats.hits, catalogue: catalogueCache(gateway).stats.hits };
      const response = await get(gateway, path, token).expect(200);
      if (tokenCache(gateway).stats.hits > before.tokens && (!catalogueRead || catalogueCache(gateway).stats.hits > before.catalogue)) return response;
      await sleep(20);
    }
    throw new Error(`${path} never came from the cache`);
  }

  it('a revoked token is refused on the very next request, by both gateways', async () => {
    const { id, token } = await vendor.issue(['catalogue:read']);
    await cached(stack.gateway, '/services', token);
    await cached(other, '/services', token);

    await stack.gateway.app.get(TokenService).revoke(id);

    await get(other, '/services', token).expect(401);
    await get(stack.gateway, '/services', token).expect(401);
  });

  it('an ability withdrawn from the vendor is refused on the very next request', async () => {
    const abilityVendor = await stack.vendor({ name: 'Ability vendor' });
    await cached(other, '/services', abilityVendor.token);

    await stack.db.query(`UPDATE vendors SET enabled_abilities = array_remove(enabled_abilities, 'catalogue:read') WHERE id = $1`, [abilityVendor.vendor.id]);

    const refused = await get(other, '/services', abilityVendor.token).expect(403);
    expect(refused.body.success).toBe(false);
  });

  it('a product withdrawn from the vendor disappears on the very next request', async () => {
    const product = PRODUCTS.pin;
    await cached(other, `/products/${product}`);
    const listed = await cached(other, '/products?per_page=100');
    expect(listed.body.data.items.map((item: { id: number }) => item.id)).toContain(product);

    await stack.gateway.app.get(PurchaseCatalogueService).disableProducts(vendor.vendor.id, [product]);

    await get(other, `/products/${product}`).expect(422);
    const after = await get(other, '/products?per_page=100').expect(200);
    expect(after.body.data.items.map((item: { id: number }) => item.id)).not.toContain(product);
    expect(after.body.data.total).toBe(listed.body.data.total - 1);
  });

  it('a new pricing version is priced on the very next request', async () => {
    const product = PRODUCTS.fixedAirtime;
    const before = await cached(other, `/products/${product}`);
    const listBefore = await cached(other, '/products?per_page=5');

    const published = await stack.gateway.app.get(PurchasePricingService).publish(1_500);

    const after = await get(other, `/products/${product}`).expect(200);
    expect(after.body.data.price.pricing_version_id).toBe(published.id);
    expect(after.body.data.price.pricing_version_id).not.toBe(before.body.data.price.pricing_version_id);
    expect(after.body.data.price.charge_minor).toBeGreaterThan(before.body.data.price.charge_minor);
    const listAfter = await get(other, '/products?per_page=5').expect(200);
    expect(listAfter.body.data.items.map((item: { price: { pricing_version_id: number } }) => item.price.pricing_version_id)).toEqual(
      listBefore.body.data.items.map(() => published.id),
    );
  });

  it('with the listening connection lost, the caches are bypassed until it is back, and start empty', async () => {
    const product = PRODUCTS.esim;
    await cached(other, `/products/${product}`);
    const { id, token } = await vendor.issue(['catalogue:read']);
    await cached(other, '/services', token);

    // The listener's session ends, as in a database restart or a network cut.
    await stack.db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, [OTHER_LISTENER]);
    await untilLive(other, false);

    // Changes the disconnected gateway cannot hear about.
    await stack.db.query(`DELETE FROM purchase_vendor_products WHERE vendor_id = $1 AND product_id = $2`, [vendor.vendor.id, product]);
    await stack.db.query(`UPDATE api_tokens SET revoked_at = now() WHERE id = $1`, [id]);

    const hits = { tokens: tokenCache(other).stats.hits, catalogue: catalogueCache(other).stats.hits };
    await get(other, `/products/${product}`).expect(422);
    await get(other, '/services', token).expect(401);
    await get(other, '/services').expect(200);
    await get(other, '/services').expect(200);
    expect(tokenCache(other).stats).toMatchObject({ live: false, hits: hits.tokens, size: 0 });
    expect(catalogueCache(other).stats).toMatchObject({ live: false, hits: hits.catalogue, size: 0 });

    // Back: listening again, it caches again.
    await untilLive(other);
    await get(other, `/products/${product}`).expect(422);
    await cached(other, '/services');
  });
});
