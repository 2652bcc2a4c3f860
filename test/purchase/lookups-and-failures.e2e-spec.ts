import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { runMigrations } from '#database';
import { PurchaseCatalogueService, PurchaseCatalogueSyncService } from '#purchase';
import { REDIS_CLIENT } from '#queues';
import { startPurchaseGateway, type RunningApp } from '../support/apps.js';
import { bearer, CALLBACK_TOKEN, PRODUCTS, SANDBOX_API_KEY, startSandbox, type PurchaseStack, usePurchaseStack } from '../support/purchase-stack.js';
import { createTestVendor, type TestVendor } from '../support/vendors.js';
import { FaultProxy } from '../support/reliability/fault-proxy.js';
import { mobile } from './purchase-helpers.js';

/** A stand-in provider that fails in a chosen way: answers 500, or never answers. */
async function brokenProvider(mode: 'http-500' | 'silent'): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    if (mode === 'http-500') response.writeHead(500, { 'content-type': 'application/json' }).end('{"errors":[{"code":"INTERNAL"}]}');
    // silent: keep the socket open without answering.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const PRODUCTION_SECRETS = {
  APP_ENV: 'production',
  ENCRYPTION_KEYS: `prod1:${randomBytes(32).toString('base64')}`,
  ENCRYPTION_ACTIVE_KEY_ID: 'prod1',
  CALLBACK_BASE_URL: 'https://gateway.example/api/v1/provider/callback',
  CALLBACK_TOKEN,
};

/** Repeats a request until it answers `status` (e.g. while a client notices a cut or a reconnect), with a generous deadline. */
async function eventuallyStatus<T extends { status: number }>(send: () => PromiseLike<T>, status: number, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await send();
    if (response.status === status) return response;
    if (Date.now() > deadline) throw new Error(`still ${response.status} after ${timeoutMs} ms, expected ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('lookups, provider failures, production fail-closed and rate limits', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  usePurchaseStack((suite) => ({ stack, vendor } = suite));

  const lookup = (app: RunningApp, kind: string, body: object, token = vendor.token) => app.http().post(`/api/v1/lookups/${kind}`).set(bearer(token)).send(body);

  describe('lookups', () => {
    it('finds the operators of a mobile number, restricted to the vendor’s enabled operators', async () => {
      const all = await lookup(stack.gateway, 'mobile-number', { mobile_number: '27821234567' }).expect(200);
      expect(all.body.data).toEqual({ items: [{ id: 101, name: 'Vodacom ZA', country_iso_code: 'ZAF' }], page: 1, total: 1, last_page: 1 });
      const withProduct = await lookup(stack.gateway, 'mobile-number', { mobile_number: '27821234567', product_id: PRODUCTS.pin }).expect(200);
      expect(withProduct.body.data.total).toBe(1);

      const mtnOnly = await stack.vendor({ enable: [10201] });
      const filtered = await lookup(stack.gateway, 'mobile-number', { mobile_number: '27821234567' }, mtnOnly.token).expect(200);
      expect(filtered.body.data).toEqual({ items: [], page: 1, total: 0, last_page: 1 });
      const notEnabled = await lookup(stack.gateway, 'mobile-number', { mobile_number: '27821234567', product_id: PRODUCTS.pin }, mtnOnly.token).expect(422);
      expect(notEnabled.body.error.code).toBe('PRODUCT_UNAVAILABLE');
    });

    it('answers statement, account and eSIM lookups without delivery data', async () => {
      const statement = await lookup(stack.gateway, 'statement', { product_id: PRODUCTS.bill, account_number: '4000123456' }).expect(200);
      expect(statement.body.data).toMatchObject({ product_id: PRODUCTS.bill, account_number: '4000123456', currency: 'ZAR', amount_due: expect.stringMatching(/^\d+\.\d{2}$/) });
      const account = await lookup(stack.gateway, 'account', { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') }).expect(200);
      expect(account.body.data).toMatchObject({ product_id: PRODUCTS.fixedAirtime, valid: true, operator: { id: 101, name: 'Vodacom ZA' } });
      const benefits = await lookup(stack.gateway, 'esim-benefits', { product_id: PRODUCTS.esim, ...mobile('27821234567') }).expect(200);
      expect(benefits.body.data.benefits[0]).toMatchObject({ type: 'DATA', unit: 'MB', total: '1024' });
      const status = await lookup(stack.gateway, 'esim-status', { product_id: PRODUCTS.esim, ...mobile('27821234567') }).expect(200);
      expect(['INSTALLED', 'NOT_INSTALLED']).toContain(status.body.data.status);
      for (const body of [statement.body, account.body, benefits.body, status.body]) expect(JSON.stringify(body)).not.toMatch(/activation_code|"pin"|serial/);
    });

    it('refuses lookups a product does not support, and malformed bodies', async () => {
      const unsupported = await lookup(stack.gateway, 'statement', { product_id: PRODUCTS.fixedAirtime, account_number: '1' }).expect(422);
      expect(unsupported.body.error).toMatchObject({ code: 'VALIDATION_FAILED', fields: { product_id: expect.any(Array) } });
      const missing = await lookup(stack.gateway, 'mobile-number', {}).expect(422);
      expect(missing.body.error.fields).toHaveProperty('mobile_number');
      const pageSize = await lookup(stack.gateway, 'mobile-number', { mobile_number: '27821234567', per_page: 101 }).expect(422);
      expect(pageSize.body.error.fields).toHaveProperty('per_page');
      const noIdentifier = await lookup(stack.gateway, 'account', { product_id: PRODUCTS.fixedAirtime }).expect(422);
      expect(noIdentifier.body.error.fields).toHaveProperty('credit_party_identifier');
    });
  });

  describe('provider failures', () => {
    it('answers PROVIDER_HTTP_ERROR when the provider answers 5xx or is down, PROVIDER_OUTCOME_UNKNOWN on a timeout', async () => {
      const failing = await brokenProvider('http-500');
      const silent = await brokenProvider('silent');
      const stopped = await startSandbox();
      await stopped.close();
      const gateways = await Promise.all([
        startPurchaseGateway({ config: { PURCHASE_PROVIDER_BASE_URL: failing.url } }),
        startPurchaseGateway({ config: { PURCHASE_PROVIDER_BASE_URL: stopped.url } }),
        startPurchaseGateway({ config: { PURCHASE_PROVIDER_BASE_URL: silent.url, PURCHASE_PROVIDER_TIMEOUT_MS: '300' } }),
      ]);
      try {
        const [http500, down, timeout] = await Promise.all(gateways.map((gateway) => lookup(gateway, 'account', { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') })));
        expect([http500.status, http500.body.error.code]).toEqual([503, 'PROVIDER_HTTP_ERROR']);
        expect([down.status, down.body.error.code]).toEqual([503, 'PROVIDER_HTTP_ERROR']);
        expect([timeout.status, timeout.body.error.code]).toEqual([503, 'PROVIDER_OUTCOME_UNKNOWN']);
        expect(JSON.stringify(http500.body)).not.toContain('INTERNAL"');
      } finally {
        await Promise.all(gateways.map((gateway) => gateway.close()));
        await failing.close();
        await silent.close();
      }
    });

    it('fails closed in production without provider settings: PROVIDER_NOT_CONFIGURED for lookups and purchases', async () => {
      const production = await startPurchaseGateway({ config: { ...PRODUCTION_SECRETS } });
      try {
        const released = await createTestVendor(production.app);
        await stack.gateway.app.get(PurchaseCatalogueService).enableProducts(released.vendor.id, 'all');
        await stack.db.query(`UPDATE vendors SET production_released_at = now() WHERE id = $1`, [released.vendor.id]);
        const lookupResponse = await lookup(production, 'account', { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') }, released.token).expect(503);
        expect(lookupResponse.body.error.code).toBe('PROVIDER_NOT_CONFIGURED');
        const quote = await production.http().post('/api/v1/quotes').set(bearer(released.token)).send({ product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') }).expect(201);
        const response = await production.http().post('/api/v1/transactions').set(bearer(released.token)).set('Idempotency-Key', 'prod-1').send({ quote_id: quote.body.data.id, reference: 'prod-1' }).expect(503);
        expect(response.body.error.code).toBe('PROVIDER_NOT_CONFIGURED');
        expect(await stack.db.query(`SELECT 1 FROM purchase_transactions WHERE vendor_id = $1`, [released.vendor.id])).toHaveLength(0);
      } finally {
        await production.close();
      }
    });

    it('answers VENDOR_NOT_RELEASED in production until the vendor is accepted, on purchases, quotes and provider lookups alike', async () => {
      // The production gateway reaches the provider through a proxy that counts its connections.
      const toProvider = await FaultProxy.forUrl(stack.sandbox.url);
      const production = await startPurchaseGateway({
        config: { ...PRODUCTION_SECRETS, PURCHASE_PROVIDER_BASE_URL: toProvider.proxied(stack.sandbox.url), PURCHASE_PROVIDER_API_KEY: SANDBOX_API_KEY },
      });
      const providerSearches = async () => toProvider.stats.accepted;
      try {
        const candidate = await stack.vendor();
        const refusal = { success: false, message: 'VENDOR_NOT_RELEASED', error: { code: 'VENDOR_NOT_RELEASED' } };
        const quote = () => production.http().post('/api/v1/quotes').set(bearer(candidate.token)).send({ product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') });
        const lookups = () => [
          lookup(production, 'mobile-number', { mobile_number: '27821234567' }, candidate.token),
          lookup(production, 'account', { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') }, candidate.token),
          lookup(production, 'statement', { product_id: PRODUCTS.bill, account_number: '1234567890' }, candidate.token),
          lookup(production, 'esim-benefits', { product_id: PRODUCTS.esim, ...mobile('27821234567') }, candidate.token),
          lookup(production, 'esim-status', { product_id: PRODUCTS.esim, ...mobile('27821234567') }, candidate.token),
        ];
        const searchesBefore = await providerSearches();
        for (const response of [await quote(), ...(await Promise.all(lookups()))]) {
          expect(response.status).toBe(409);
          expect(response.body).toEqual(refusal);
        }
        // Refused before the provider was asked anything, and no quote was stored.
        expect(await providerSearches()).toBe(searchesBefore);
        expect(searchesBefore).toBe(0);
        expect(await stack.db.query(`SELECT 1 FROM purchase_quotes WHERE vendor_id = $1`, [candidate.vendor.id])).toEqual([]);
        // A purchase needs a quote; one made outside production (or before a release was withdrawn) is still refused.
        const earlier = await stack.gateway.http().post('/api/v1/quotes').set(bearer(candidate.token)).send({ product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') }).expect(201);
        const buy = (key: string, quoteId: string) => production.http().post('/api/v1/transactions').set(bearer(candidate.token)).set('Idempotency-Key', key).send({ quote_id: quoteId, reference: key });
        expect((await buy('rel-1', earlier.body.data.id)).body).toEqual(refusal);

        await stack.db.query(`UPDATE vendors SET production_released_at = now() WHERE id = $1`, [candidate.vendor.id]);
        const released = await quote().expect(201);
        expect((await lookup(production, 'account', { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') }, candidate.token)).status).toBe(200);
        expect(await providerSearches()).toBeGreaterThan(0);
        expect((await buy('rel-2', released.body.data.id)).status).toBe(202);
      } finally {
        await production.close();
        await toProvider.close();
      }
    });
  });

  describe('rate limits', () => {
    it('limits reads and writes per token in separate buckets with API_RATE_LIMITED and Retry-After', async () => {
      const limited = await startPurchaseGateway({ config: { RATE_LIMIT_READ_PER_MINUTE: '3', RATE_LIMIT_WRITE_PER_MINUTE: '2' } });
      try {
        // Fixed one-minute windows: start well inside one so the burst cannot straddle two.
        const intoMinute = Date.now() % 60_000;
        if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
        const reader = await vendor.issue(['catalogue:read', 'quotes:write']);
        const read = () => limited.http().get('/api/v1/services').set(bearer(reader.token));
        for (let index = 0; index < 3; index++) await read().expect(200);
        const refused = await read().expect(429);
        expect(refused.body).toEqual({ success: false, message: 'API_RATE_LIMITED', error: { code: 'API_RATE_LIMITED' } });
        const retryAfter = Number(refused.headers['retry-after']);
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        // Every count sets the bucket to expire two windows later, so an idle token's buckets leave Redis.
        const bucket = `gw:rate:read:${reader.id}:${Math.floor(Date.now() / 60_000)}`;
        const expiresInMs = await limited.app.get<Redis>(REDIS_CLIENT).pttl(bucket);
        expect(expiresInMs).toBeGreaterThan(110_000);
        expect(expiresInMs).toBeLessThanOrEqual(120_000);
        // The write bucket is separate, and so is every other token.
        const write = () => limited.http().post('/api/v1/quotes').set(bearer(reader.token)).send({ product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') });
        await write().expect(201);
        await write().expect(201);
        expect((await write().expect(429)).body.error.code).toBe('API_RATE_LIMITED');
        const other = await vendor.issue(['catalogue:read']);
        await limited.http().get('/api/v1/services').set(bearer(other.token)).expect(200);
        // Public routes are not counted against anyone.
        await limited.http().get('/health/live').expect(200);
      } finally {
        await limited.close();
      }
    });

    it('fails closed while Redis is unreachable: 503 SERVICE_UNAVAILABLE with Retry-After, nothing written, then serves again', async () => {
      const redisUrl = process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379';
      const toRedis = await FaultProxy.forUrl(redisUrl);
      const gateway = await startPurchaseGateway({
        config: { PURCHASE_PROVIDER_BASE_URL: stack.sandbox.url, PURCHASE_PROVIDER_API_KEY: SANDBOX_API_KEY, REDIS_URL: toRedis.proxied(redisUrl) },
      });
      try {
        const buyer = await stack.vendor();
        const quoted = await gateway.http().post('/api/v1/quotes').set(bearer(buyer.token)).send({ product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') }).expect(201);
        toRedis.setMode('refuse');
        toRedis.cutAll();
        const buy = () => gateway.http().post('/api/v1/transactions').set(bearer(buyer.token)).set('Idempotency-Key', 'redis-down').send({ quote_id: quoted.body.data.id, reference: 'redis-down' });
        // A read first, until the gateway's client has seen the cut; then the purchase.
        await eventuallyStatus(() => gateway.http().get('/api/v1/limits').set(bearer(buyer.token)), 503);
        const refused = await buy();
        expect(refused.status).toBe(503);
        expect(refused.body).toMatchObject({ success: false, message: 'SERVICE_UNAVAILABLE', error: { code: 'SERVICE_UNAVAILABLE' } });
        expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        for (const response of [
          await gateway.http().post('/api/v1/quotes').set(bearer(buyer.token)).send({ product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') }),
          await gateway.http().get('/api/v1/limits').set(bearer(buyer.token)),
          await lookup(gateway, 'account', { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') }, buyer.token),
        ]) {
          expect(response.status).toBe(503);
          expect(response.body.error.code).toBe('SERVICE_UNAVAILABLE');
          expect(response.headers['retry-after']).toBeDefined();
        }
        // Nothing written: no purchase, no idempotency key, no allowance used, the quote unused, no second quote.
        expect(await stack.db.query(`SELECT 1 FROM purchase_transactions WHERE vendor_id = $1`, [buyer.vendor.id])).toEqual([]);
        expect(await stack.db.query(`SELECT 1 FROM purchase_idempotency_keys WHERE vendor_id = $1`, [buyer.vendor.id])).toEqual([]);
        expect(await stack.db.query(`SELECT 1 FROM purchase_daily_allowances WHERE vendor_id = $1 AND used_cents > 0`, [buyer.vendor.id])).toEqual([]);
        expect(await stack.db.query(`SELECT used_at FROM purchase_quotes WHERE vendor_id = $1`, [buyer.vendor.id])).toEqual([{ used_at: null }]);
        // Public routes are not rate limited.
        await gateway.http().get('/health/live').expect(200);

        toRedis.setMode('pass');
        const admitted = await eventuallyStatus(buy, 202);
        expect(admitted.body.data.status).toBe('pending');
      } finally {
        await gateway.close();
        await toRedis.close();
      }
    });
  });

  describe('a fresh installation', () => {
    it('answers PRICING_UNPUBLISHED until staff publish pricing, and lists products without a price', async () => {
      const base = new URL(process.env.E2E_DATABASE_URL!);
      const name = `${base.pathname.slice(1)}_unpriced`;
      const admin = new URL(base);
      admin.pathname = '/postgres';
      const client = new pg.Client({ connectionString: admin.toString() });
      await client.connect();
      await client.query(`CREATE DATABASE "${name}"`);
      const url = new URL(base);
      url.pathname = `/${name}`;
      const sandbox = await startSandbox();
      let gateway: RunningApp | undefined;
      try {
        await runMigrations(url.toString());
        gateway = await startPurchaseGateway({ config: { DATABASE_URL: url.toString(), PURCHASE_PROVIDER_BASE_URL: sandbox.url } });
        await gateway.app.get(PurchaseCatalogueSyncService).sync();
        const fresh = await createTestVendor(gateway.app);
        await gateway.app.get(PurchaseCatalogueService).enableProducts(fresh.vendor.id, 'all');
        const product = await gateway.http().get(`/api/v1/products/${PRODUCTS.fixedAirtime}`).set(bearer(fresh.token)).expect(200);
        expect(product.body.data.price).toBeNull();
        const response = await gateway.http().post('/api/v1/quotes').set(bearer(fresh.token)).send({ product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') }).expect(409);
        expect(response.body).toEqual({ success: false, message: 'PRICING_UNPUBLISHED', error: { code: 'PRICING_UNPUBLISHED' } });
      } finally {
        await gateway?.close();
        await sandbox.close();
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await client.end();
      }
    });
  });
});
