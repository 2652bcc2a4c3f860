import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import {
  AuthenticationError,
  GatewayApiError,
  IdempotencyConflictError,
  isPurchaseError,
  NotFoundError,
  PayoutClient,
  PurchaseClient,
  type PayoutRequest,
  type RetryEvent,
  type Transaction,
} from '../../packages/sdk/src/index.js';
import { startPayoutGateway, type RunningApp } from '../support/apps.js';
import { PAYOUT_SANDBOX_KEY, PAYOUT_STACK_CONFIG, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { PRODUCTS, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { cashPayout, rtcPayout, uniqueReference } from '../payout/payout-requests.js';

/**
 * The SDK against the real stack on real sockets: sandbox, both gateways, the worker, PostgreSQL
 * and Redis. Waits use short intervals: the test stacks run the provider's clocks fast.
 */
const FAST_WAIT = { intervalMs: 100, maxIntervalMs: 500, timeoutMs: 30_000 };

describe('SDK against the running stack', () => {
  let purchaseStack: PurchaseStack;
  let payoutStack: PayoutStack;
  let purchaseVendor: TestVendor;
  let payoutVendor: PayoutTestVendor;
  let purchase: PurchaseClient;
  let payout: PayoutClient;

  /**
   * The stacks a block needs, started for that block only. Two workers on one database would
   * each run the other domain's sweepers against a provider URL that is not theirs (failing
   * payouts, breaking quotes), so a payout worker and a purchase worker never run together.
   */
  function useStacks(needs: { purchase?: boolean; payout?: { worker: boolean } }): void {
    beforeAll(async () => {
      if (needs.purchase) {
        purchaseStack = await startPurchaseStack();
        purchaseVendor = await purchaseStack.vendor();
        // The purchase base address, as demo:seed prints it and servers[0].url states it (issue 25).
        purchase = new PurchaseClient({ baseUrl: `${purchaseStack.gateway.url!}/api/v1`, token: purchaseVendor.token });
      }
      if (needs.payout) {
        payoutStack = await startPayoutStack({ listen: true, worker: needs.payout.worker });
        payoutVendor = await payoutStack.vendor({ fundCents: 10_000_000n, feePerPayoutCents: 100n });
        payout = new PayoutClient({ baseUrl: payoutStack.gateway.url!, token: payoutVendor.token });
      }
    }, 120_000);
    afterAll(async () => {
      if (needs.purchase) await purchaseStack?.close();
      if (needs.payout) await payoutStack?.close();
    });
  }

  describe('purchase', () => {
    useStacks({ purchase: true });

    it('quotes, buys with a generated Idempotency-Key and waits for the final status', async () => {
      const quote = await purchase.createQuote({ product_id: PRODUCTS.pin, credit_party_identifier: { mobile_number: '27821234567' } });
      const reference = `sdk-${randomUUID()}`;
      const created = await purchase.createTransaction({ quote_id: quote.id, reference });
      expect(created.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.replayed).toBe(false);
      expect(created.transaction).toMatchObject({ reference, status: 'pending', charge_minor: quote.charge_minor });

      const final = await purchase.waitForFinal(created.transaction.id, FAST_WAIT);
      expect(final).toMatchObject({ id: created.transaction.id, status: 'completed', error_code: null });
      expect(await purchase.getTransactionByReference(reference)).toMatchObject({ id: final.id, status: 'completed' });

      // The same key, quote and reference: the same transaction, never a second purchase.
      const again = await purchase.createTransaction({ quote_id: quote.id, reference }, { idempotencyKey: created.idempotencyKey });
      expect(again).toMatchObject({ replayed: true, idempotencyKey: created.idempotencyKey, transaction: { id: final.id } });
      expect(await purchaseStack.sandbox.creates(final.id)).toBe(1);
    });

    it('dry-runs a purchase with the key it will buy with: create, then replay, and the real call\'s refusal', async () => {
      const quote = await purchase.createQuote({ product_id: PRODUCTS.pin, credit_party_identifier: { mobile_number: '27821234567' } });
      const body = { quote_id: quote.id, reference: `sdk-${randomUUID()}` };
      const idempotencyKey = `sdk-key-${randomUUID()}`;
      expect(await purchase.validateTransaction(body, { idempotencyKey })).toMatchObject({ outcome: 'create', charge_minor: quote.charge_minor, transaction: null });
      const { transaction } = await purchase.createTransaction(body, { idempotencyKey });
      expect(await purchase.validateTransaction(body, { idempotencyKey })).toMatchObject({ outcome: 'replay', transaction: { id: transaction.id } });
      const conflict = await purchase.validateTransaction(body, { idempotencyKey: `sdk-key-${randomUUID()}` }).catch((caught: unknown) => caught);
      expect(conflict).toBeInstanceOf(IdempotencyConflictError);
      expect(isPurchaseError(conflict, 'validateTransaction') && conflict.code === 'IDEMPOTENCY_CONFLICT').toBe(true);
    });

    it('waits a declined purchase to failed with its error code', async () => {
      const quote = await purchase.createQuote({ product_id: PRODUCTS.pin, credit_party_identifier: { mobile_number: '27821234501' } });
      const { transaction } = await purchase.createTransaction({ quote_id: quote.id, reference: `sdk-${randomUUID()}` });
      expect(await purchase.waitForFinal(transaction.id, FAST_WAIT)).toMatchObject({ status: 'failed', error_code: 'PROVIDER_DECLINED' });
    });

    it('throws GatewayApiError with the code, the field errors and the request id', async () => {
      const error = await purchase.createTransaction({ quote_id: 'not-a-uuid', reference: '' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(GatewayApiError);
      const apiError = error as GatewayApiError;
      expect(apiError).toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
      expect(apiError.errors).toEqual({ quote_id: expect.any(Array), reference: expect.any(Array) });
      expect(apiError.requestId).toEqual(expect.any(String));

      const notFound = await purchase.getTransaction(randomUUID()).catch((caught: unknown) => caught);
      // Error classes by kind: a 404 is a NotFoundError, still a GatewayApiError.
      expect(notFound).toBeInstanceOf(NotFoundError);
      expect(notFound).toBeInstanceOf(GatewayApiError);
      expect((notFound as NotFoundError).name).toBe('NotFoundError');
      expect(notFound).toMatchObject({ status: 404, code: 'NOT_FOUND', errors: {}, operation: 'getTransaction' });

      const quote = await purchase.createQuote({ product_id: PRODUCTS.pin, credit_party_identifier: { mobile_number: '27821234567' } });
      const key = randomUUID();
      await purchase.createTransaction({ quote_id: quote.id, reference: `sdk-${randomUUID()}` }, { idempotencyKey: key });
      const conflict = await purchase.createTransaction({ quote_id: quote.id, reference: `sdk-${randomUUID()}` }, { idempotencyKey: key }).catch((caught: unknown) => caught);
      expect(conflict).toMatchObject({ status: 409, code: 'IDEMPOTENCY_CONFLICT' });
      expect(conflict).toBeInstanceOf(IdempotencyConflictError);
      expect(isPurchaseError(conflict, 'createTransaction') && conflict.code === 'IDEMPOTENCY_CONFLICT').toBe(true);

      const unauthenticated = new PurchaseClient({ baseUrl: purchaseStack.gateway.url!, token: 'gwt_test_not-a-token' });
      await expect(unauthenticated.getLimits()).rejects.toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
      await expect(unauthenticated.getLimits()).rejects.toBeInstanceOf(AuthenticationError);
    });

    it('pages through every transaction with the paging helper', async () => {
      const vendor = await purchaseStack.vendor({ name: 'SDK paging vendor' });
      const client = new PurchaseClient({ baseUrl: purchaseStack.gateway.url!, token: vendor.token });
      const references: string[] = [];
      for (let index = 0; index < 3; index++) {
        const quote = await client.createQuote({ product_id: PRODUCTS.pin, credit_party_identifier: { mobile_number: '27821234567' } });
        references.push(`sdk-page-${index}-${randomUUID()}`);
        await client.createTransaction({ quote_id: quote.id, reference: references[index] });
      }
      const seen: Transaction[] = [];
      for await (const transaction of client.transactions({ per_page: 2 })) seen.push(transaction);
      expect(seen.map((transaction) => transaction.reference).sort()).toEqual([...references].sort());
    });

    it('reaches the catalogue, quote read, reports and webhook endpoints as methods, with response metadata', async () => {
      expect((await purchase.listServices()).length).toBeGreaterThan(0);
      expect(Array.isArray(await purchase.listCountries())).toBe(true);
      expect(Array.isArray(await purchase.listOperators())).toBe(true);
      const products = await purchase.listProducts({ per_page: 1 }).toArray({ limit: 3 });
      expect(products.length).toBeGreaterThan(0);
      expect((await purchase.getProduct(products[0].id)).id).toBe(products[0].id);

      const quote = await purchase.createQuote({ product_id: PRODUCTS.pin, credit_party_identifier: { mobile_number: '27821234567' } });
      const { data: read, response } = await purchase.getQuote(quote.id).withResponse();
      expect(read.id).toBe(quote.id);
      expect(response.status).toBe(200);
      expect(response.requestId).toEqual(expect.any(String));
      expect(response.rateLimit.limit).toEqual(expect.any(Number));
      expect(response.rateLimit.remaining).toEqual(expect.any(Number));
      expect(await purchase.getSalesSummary({})).toEqual(expect.any(Object));

      const endpoint = await purchase.createWebhookEndpoint({ url: 'http://127.0.0.1:9/sdk-hooks', events: ['transaction.completed'] });
      expect(endpoint.secret).toMatch(/^whsec_/);
      expect((await purchase.listWebhookEndpoints()).map((item) => item.id)).toContain(endpoint.id);
      expect((await purchase.updateWebhookEndpoint(endpoint.id, { description: 'sdk' })).description).toBe('sdk');
      expect((await purchase.rotateWebhookSecret(endpoint.id, { overlap_seconds: 0 })).secret).toMatch(/^whsec_/);
      expect(await purchase.listWebhookDeliveries(endpoint.id).toArray()).toEqual(expect.any(Array));
      await purchase.deleteWebhookEndpoint(endpoint.id);
      await expect(purchase.getWebhookEndpoint(endpoint.id)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('takes the base address with /api/v1 (or the bare origin) and refuses any other path, naming the rule', async () => {
      const fromOrigin = new PurchaseClient({ baseUrl: purchaseStack.gateway.url!, token: purchaseVendor.token });
      expect((await fromOrigin.getLimits()).currency).toBe('ZAR');
      expect(() => new PurchaseClient({ baseUrl: `${purchaseStack.gateway.url}/api`, token: 'x' })).toThrow(/base address/);
      expect(() => new PurchaseClient({ baseUrl: `${purchaseStack.gateway.url}/api/v1/api/v1`, token: 'x' })).toThrow(/base address/);
    });

    it('refuses a payout base URL that is not the origin, naming the rule', () => {
      expect(() => new PayoutClient({ baseUrl: 'http://127.0.0.1:3001/api/v1', token: 'x' })).toThrow(/origin/);
    });
  });

  describe('payout', () => {
    useStacks({ payout: { worker: true } });

    it('pays a cash payout at once, replays it by reference, and waits an RTC payout to paid', async () => {
      const request = cashPayout('55', { amount: '150.00' }) as PayoutRequest;
      const first = await payout.createPayout(request);
      expect(first).toMatchObject({ replayed: false, payout: { reference: request.reference, status: 'paid', amount: '150.00', fee: '1.00' } });
      const again = await payout.createPayout(request);
      expect(again).toMatchObject({ replayed: true, payout: { id: first.payout.id } });
      expect((await payoutStack.submissions(first.payout.merchant_reference)).count).toBe(1);

      const rtc = rtcPayout('55') as PayoutRequest;
      const pending = await payout.createPayout(rtc);
      expect(pending.payout.status).toBe('pending');
      expect(await payout.waitForFinal(rtc.reference, FAST_WAIT)).toMatchObject({ reference: rtc.reference, status: 'paid' });
      expect(await payout.getAccount()).toMatchObject({ currency: 'ZAR' });
    });

    it('throws GatewayApiError with the payout envelope\'s code and field errors', async () => {
      const invalid = await payout.createPayout({ ...(cashPayout('55') as PayoutRequest), amount: '12.345' }).catch((caught: unknown) => caught);
      expect(invalid).toBeInstanceOf(GatewayApiError);
      expect(invalid).toMatchObject({ status: 422, code: 'VALIDATION_FAILED', errors: { amount: expect.any(Array) } });

      const request = cashPayout('55') as PayoutRequest;
      await payout.createPayout(request);
      const conflict = await payout.createPayout({ ...request, amount: '99.00' }).catch((caught: unknown) => caught);
      expect(conflict).toMatchObject({ status: 409, code: 'REFERENCE_CONFLICT' });
      await expect(payout.getPayout(uniqueReference('missing'))).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    });

    it('dry-runs a batch item by item, then answers its replay', async () => {
      const reference = uniqueReference('sdk-batch-dry');
      const items = [cashPayout('55', { amount: '100.00' }), cashPayout('55', { amount: '50.00' })] as PayoutRequest[];
      const dry = await payout.validateBatch({ reference, payouts: items });
      expect(dry).toMatchObject({ outcome: 'create', item_count: 2, total_amount: '150.00', total_fee: '2.00', total_hold: '152.00' });
      expect(dry.payouts.map((item) => [item.reference, item.hold])).toEqual([
        [items[0].reference, '101.00'],
        [items[1].reference, '51.00'],
      ]);
      await expect(payout.getBatch(reference)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
      await payout.createBatch({ reference, payouts: items });
      expect(await payout.validateBatch({ reference, payouts: items })).toMatchObject({ outcome: 'replay', available_after: null });
      await expect(payout.validateBatch({ reference, payouts: [items[0]] })).rejects.toMatchObject({ status: 409, code: 'REFERENCE_CONFLICT' });
    });

    it('accepts a batch and waits for it to complete', async () => {
      const reference = uniqueReference('sdk-batch');
      const items = [cashPayout('55'), cashPayout('01'), rtcPayout('55')] as PayoutRequest[];
      const { batch, replayed } = await payout.createBatch({ reference, payouts: items });
      expect(replayed).toBe(false);
      expect(batch).toMatchObject({ reference, item_count: 3 });
      const done = await payout.waitForBatch(reference, FAST_WAIT);
      expect(done.status).toBe('completed_with_failures');
      expect(Object.fromEntries(done.payouts.map((item) => [item.reference, item.status]))).toEqual({
        [items[0].reference]: 'paid',
        [items[1].reference]: 'failed',
        [items[2].reference]: 'paid',
      });
      expect((await payout.createBatch({ reference, payouts: items })).replayed).toBe(true);
    });

    describe('rate limits', () => {
      let limited: RunningApp;

      beforeAll(async () => {
        // A payout gateway with a real, low limit: two reads per token and minute.
        limited = await startPayoutGateway({
          config: { ...PAYOUT_STACK_CONFIG, PAYOUT_PROVIDER_BASE_URL: payoutStack.sandboxUrl, PAYOUT_PROVIDER_API_KEY: PAYOUT_SANDBOX_KEY, RATE_LIMIT_READ_PER_MINUTE: '2' },
          listen: true,
        });
      });
      afterAll(async () => limited?.close());

      it('on 429 waits exactly Retry-After and then succeeds; without retries the 429 is a typed API_RATE_LIMITED', async () => {
        const { token } = await payoutVendor.issue(['payouts:read']);
        // The limiter counts fixed one-minute windows: start five seconds before one ends, so the
        // Retry-After is short and the retry lands in the next window.
        const intoMinute = Date.now() % 60_000;
        await new Promise((resolve) => setTimeout(resolve, (55_000 - intoMinute + 60_000) % 60_000));

        const once = new PayoutClient({ baseUrl: limited.url!, token, retry: false });
        await once.getAccount();
        await once.getAccount();
        const refused = await once.getAccount().catch((caught: unknown) => caught);
        expect(refused).toMatchObject({ status: 429, code: 'API_RATE_LIMITED', errors: {} });
        const retryAfterSeconds = (refused as GatewayApiError).retryAfterSeconds!;
        expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(retryAfterSeconds).toBeLessThanOrEqual(6);

        const retries: RetryEvent[] = [];
        const patient = new PayoutClient({ baseUrl: limited.url!, token, onRetry: (event) => retries.push(event) });
        const windowEnds = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
        const account = await patient.getAccount();
        expect(account.currency).toBe('ZAR');
        expect(retries).toEqual([expect.objectContaining({ retry: 1, method: 'GET', status: 429 })]);
        // The wait was the gateway's Retry-After (whole seconds), not a guess, and it reached the next window.
        expect(retries[0].delayMs % 1000).toBe(0);
        expect(retries[0].delayMs).toBeLessThanOrEqual(retryAfterSeconds * 1000);
        expect(Date.now()).toBeGreaterThanOrEqual(windowEnds);
      }, 100_000);
    });
  });

  describe('as vendors get it (packages/sdk/dist, built by npm run sdk:build)', () => {
    // Cash payouts are paid in the gateway's answer: the example needs no payout worker.
    useStacks({ purchase: true, payout: { worker: false } });

    const SDK = 'packages/sdk';
    const EXAMPLE = `${SDK}/examples/quick-start.mjs`;
    const run = promisify(execFile);

    beforeAll(() => {
      if (!existsSync(`${SDK}/dist/esm/index.js`) || !existsSync(`${SDK}/dist/cjs/index.js`)) throw new Error('the SDK is not built: run npm run sdk:build');
    });

    it("runs the README's quick start unchanged, with least-privilege tokens", async () => {
      const readme = await readFile(`${SDK}/README.md`, 'utf8');
      const example = await readFile(EXAMPLE, 'utf8');
      // The README shows the example file itself, so what is run here is what a vendor reads.
      expect(readme).toContain(example.trim());
      const purchaseToken = await purchaseVendor.issue(['quotes:write', 'transactions:write', 'transactions:read']);
      const { stdout } = await run(process.execPath, [EXAMPLE], {
        env: {
          PATH: process.env.PATH,
          // As demo:seed prints them: the purchase base address with /api/v1, the payout origin.
          PURCHASE_BASE_URL: `${purchaseStack.gateway.url}/api/v1`,
          PURCHASE_TOKEN: purchaseToken.token,
          PAYOUT_BASE_URL: payoutStack.gateway.url,
          PAYOUT_TOKEN: payoutVendor.readWriteToken,
        },
        timeout: 60_000,
      });
      expect(stdout).toMatch(/^purchase [0-9a-f-]{36}: completed, charged \d+ ZAR cents$/m);
      expect(stdout).toMatch(/^payout payout-[0-9a-f-]{36}: paid, fee 1\.00 ZAR$/m);
      expect(stdout).toMatch(/^refused: 422 VALIDATION_FAILED, fields: reference$/m);
    }, 90_000);

    it('loads from CommonJS (require) and from ESM (import), with types for both', async () => {
      const probe = "const sdk = require('@za-gateway/sdk'); console.log(typeof sdk.PurchaseClient, typeof sdk.PayoutClient, typeof sdk.GatewayApiError)";
      expect((await run(process.execPath, ['-e', probe], { cwd: SDK })).stdout.trim()).toBe('function function function');
      const esm = "import('@za-gateway/sdk').then((sdk) => console.log(typeof sdk.PurchaseClient, typeof sdk.PayoutClient))";
      expect((await run(process.execPath, ['-e', esm], { cwd: SDK })).stdout.trim()).toBe('function function');
      const manifest = JSON.parse(await readFile(`${SDK}/package.json`, 'utf8'));
      for (const target of [manifest.exports['.'].import.types, manifest.exports['.'].require.types]) expect(existsSync(`${SDK}/${target}`)).toBe(true);
    });
  });
});
