import { randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { PurchaseSpendControlsService } from '#purchase';
import { REDIS_CLIENT } from '#queues';
import { startPurchaseGateway, type RunningApp } from '../support/apps.js';
import { bearer, CALLBACK_TOKEN, GENEROUS_LIMITS, PRODUCTS, SANDBOX_API_KEY, startPurchaseStack, type PurchaseStack, type VendorSetup } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile } from './purchase-helpers.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * `POST /transactions/validate` (base address + path: /api/v1/transactions/validate), the dry run
 * of `POST /transactions`: it says what the real call would do and changes nothing (no
 * transaction, key claim, quote use, allowance, velocity count, status event, outbox job or
 * webhook event; the write rate bucket untouched), and answers every refusal with exactly the
 * status and body the real call gives. No worker runs: whatever the outbox holds stays there, so
 * an unchanged outbox is an unchanged set of provider submissions.
 */
describe('purchase dry run', () => {
  let stack: PurchaseStack;

  beforeAll(async () => {
    stack = await startPurchaseStack({ worker: false });
  });
  afterAll(async () => stack?.close());

  const quote = async (vendor: TestVendor, gateway: RunningApp = stack.gateway) => {
    const response = await gateway.http().post('/api/v1/quotes').set(bearer(vendor.token)).send({ product_id: PRODUCTS.fixedAirtime, ...mobile('27821230000') });
    expect(response.status).toBe(201);
    return response.body.data as { id: string; charge_minor: number };
  };
  const send = (path: string, vendor: TestVendor, body: Json, key: string | null, gateway: RunningApp = stack.gateway) => {
    const request = gateway.http().post(path).set(bearer(vendor.token));
    if (key !== null) request.set('Idempotency-Key', key);
    return request.send(body);
  };
  const dryRun = (vendor: TestVendor, body: Json, key: string | null, gateway?: RunningApp) => send('/api/v1/transactions/validate', vendor, body, key, gateway);
  const real = (vendor: TestVendor, body: Json, key: string | null, gateway?: RunningApp) => send('/api/v1/transactions', vendor, body, key, gateway);

  /** Everything a purchase request can change for a vendor: rows, limits' counters and the outbox. */
  const stateOf = async (vendorId: string) => {
    const [row] = await stack.db.query(
      `SELECT (SELECT count(*)::int FROM purchase_transactions WHERE vendor_id = $1) AS transactions,
              (SELECT count(*)::int FROM purchase_transaction_events e JOIN purchase_transactions t ON t.id = e.transaction_id WHERE t.vendor_id = $1) AS events,
              (SELECT count(*)::int FROM purchase_idempotency_keys WHERE vendor_id = $1) AS keys,
              (SELECT count(*)::int FROM purchase_quotes WHERE vendor_id = $1 AND used_at IS NOT NULL) AS used_quotes,
              (SELECT COALESCE(sum(used_cents), 0)::text FROM purchase_daily_allowances WHERE vendor_id = $1) AS allowance_used,
              (SELECT COALESCE(sum(admissions), 0)::int FROM purchase_velocity_buckets WHERE vendor_id = $1) AS velocity_admissions,
              (SELECT count(*)::int FROM webhook_events WHERE vendor_id = $1) AS webhook_events,
              (SELECT count(*)::int FROM outbox_messages) AS outbox_messages`,
      [vendorId],
    );
    return row;
  };

  /** Requests counted in a token's bucket, over every window still kept (so a minute turning over changes nothing). */
  const bucketCount = async (bucket: 'write' | 'validate', tokenId: string) => {
    const redis = stack.gateway.app.get<Redis>(REDIS_CLIENT);
    const keys = await redis.keys(`gw:rate:${bucket}:${tokenId}:*`);
    const counts = keys.length > 0 ? await redis.mget(...keys) : [];
    return counts.reduce((sum, count) => sum + Number(count ?? 0), 0);
  };

  /** A call's answer, status and body; request ids (a header, and a member of 5xx bodies) differ per request and are left out. */
  const answerOf = (response: { status: number; body: Json }) => ({
    status: response.status,
    body: JSON.parse(JSON.stringify(response.body, (name, value) => (name === 'request_id' ? undefined : value))),
  });

  it('says what the real call would do, and changes nothing, not even the write rate bucket', async () => {
    const vendor = await stack.vendor({ limits: { velocityCount: 5 } });
    const { id: quoteId, charge_minor } = await quote(vendor);
    const body = { quote_id: quoteId, reference: `order-${randomUUID()}` };
    const key = `key-${randomUUID()}`;
    const before = await stateOf(vendor.vendor.id);
    const writes = await bucketCount('write', vendor.tokenId);

    const first = await dryRun(vendor, body, key).expect(200);
    expect(first.body).toEqual({
      success: true,
      message: 'OK',
      data: {
        outcome: 'create',
        reference: body.reference,
        quote_id: quoteId,
        product_id: PRODUCTS.fixedAirtime,
        charge_minor,
        currency: 'ZAR',
        destination_amount: expect.any(String),
        destination_unit: expect.any(String),
        transaction: null,
        remaining_today_minor: 100_000_000 - charge_minor,
        velocity_remaining: 4,
      },
    });
    expect(await stateOf(vendor.vendor.id)).toEqual(before);
    expect(await bucketCount('write', vendor.tokenId)).toBe(writes);
    expect(await bucketCount('validate', vendor.tokenId)).toBe(1);

    // The real call does what the dry run said; the limits show what it said would be left.
    const admitted = await real(vendor, body, key).expect(202);
    expect(admitted.body.data).toMatchObject({ reference: body.reference, quote_id: quoteId, charge_minor, destination_amount: first.body.data.destination_amount });
    const limits = (await stack.gateway.http().get('/api/v1/limits').set(bearer(vendor.token)).expect(200)).body.data;
    expect(limits.remaining_today_minor).toBe(first.body.data.remaining_today_minor);

    // The same key, quote and reference again is a replay: the dry run answers the transaction the real call would, and changes nothing.
    const afterAdmitted = await stateOf(vendor.vendor.id);
    const replay = await dryRun(vendor, body, key).expect(200);
    const replayed = await real(vendor, body, key).expect(202);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data).toEqual({ ...first.body.data, outcome: 'replay', transaction: replayed.body.data, remaining_today_minor: null, velocity_remaining: null });
    expect(await stateOf(vendor.vendor.id)).toEqual(afterAdmitted);
  });

  /** Refusals a purchase can meet, each on a vendor of its own; setUp answers the request and the key to send. */
  type SetUp = (vendor: TestVendor) => Promise<{ body: Json; key: string | null; cleanUp?: () => Promise<void> }>;
  const fresh = async (vendor: TestVendor) => ({ body: { quote_id: (await quote(vendor)).id, reference: `ref-${randomUUID()}` }, key: `key-${randomUUID()}` });
  // Every row has all three members: jest hands a shorter row's test a `done` callback instead.
  const refusals: Array<[string, SetUp, VendorSetup]> = [
    ['VALIDATION_FAILED (every field and the key at once)', async () => ({ body: { quote_id: 'nope', reference: 'a/b', amount: 10 }, key: 'bad key' }), {}],
    ['VALIDATION_FAILED (no Idempotency-Key)', async (vendor) => ({ ...(await fresh(vendor)), key: null }), {}],
    ['VALIDATION_FAILED (an unknown quote_id)', async () => ({ body: { quote_id: randomUUID(), reference: `ref-${randomUUID()}` }, key: `key-${randomUUID()}` }), {}],
    [
      'IDEMPOTENCY_CONFLICT (the key with another reference)',
      async (vendor) => {
        const first = await fresh(vendor);
        await real(vendor, first.body, first.key).expect(202);
        return { body: { ...first.body, reference: `ref-${randomUUID()}` }, key: first.key };
      },
      {},
    ],
    [
      'IDEMPOTENCY_CONFLICT (the reference under another key)',
      async (vendor) => {
        const first = await fresh(vendor);
        await real(vendor, first.body, first.key).expect(202);
        return { body: { quote_id: (await quote(vendor)).id, reference: first.body.reference }, key: `key-${randomUUID()}` };
      },
      {},
    ],
    [
      'QUOTE_ALREADY_USED',
      async (vendor) => {
        const first = await fresh(vendor);
        await real(vendor, first.body, first.key).expect(202);
        return { body: { ...first.body, reference: `ref-${randomUUID()}` }, key: `key-${randomUUID()}` };
      },
      {},
    ],
    [
      'QUOTE_EXPIRED',
      async (vendor) => {
        const request = await fresh(vendor);
        await stack.db.query(`UPDATE purchase_quotes SET expires_at = now() - interval '1 second' WHERE id = $1`, [request.body.quote_id]);
        return request;
      },
      {},
    ],
    [
      'PURCHASES_PAUSED (for the vendor)',
      async (vendor) => {
        await stack.gateway.app.get(PurchaseSpendControlsService).pause(vendor.vendor.id);
        return fresh(vendor);
      },
      {},
    ],
    [
      'PURCHASES_PAUSED (globally)',
      async (vendor) => {
        const request = await fresh(vendor);
        const spend = stack.gateway.app.get(PurchaseSpendControlsService);
        await spend.pause(null);
        return { ...request, cleanUp: () => spend.resume(null) };
      },
      {},
    ],
    ['SPEND_CONTROLS_NOT_CONFIGURED', (vendor) => fresh(vendor), { limits: null }],
    ['TRANSACTION_MAXIMUM_EXCEEDED', (vendor) => fresh(vendor), { limits: { transactionMaxMinor: 500 } }],
    [
      'DAILY_CAP_EXCEEDED (with what remains)',
      async (vendor) => {
        const first = await fresh(vendor);
        const { charge_minor } = (await stack.gateway.http().get(`/api/v1/quotes/${first.body.quote_id}`).set(bearer(vendor.token)).expect(200)).body.data;
        // One purchase fits the day's allowance, a second does not.
        await stack.gateway.app.get(PurchaseSpendControlsService).setLimits(vendor.vendor.id, { ...GENEROUS_LIMITS, dailyCapMinor: Math.floor(charge_minor * 1.5) });
        await real(vendor, first.body, first.key).expect(202);
        return fresh(vendor);
      },
      {},
    ],
    [
      'VELOCITY_LIMIT_EXCEEDED',
      async (vendor) => {
        const first = await fresh(vendor);
        await real(vendor, first.body, first.key).expect(202);
        return fresh(vendor);
      },
      { limits: { velocityCount: 1, velocityWindowSeconds: 60 } },
    ],
  ];

  it.each(refusals)('answers %s exactly as the real call does, and changes nothing', async (_name, setUp, vendorSetup) => {
    const vendor = await stack.vendor(vendorSetup);
    const { body, key, cleanUp } = await setUp(vendor);
    try {
      const before = await stateOf(vendor.vendor.id);
      const writes = await bucketCount('write', vendor.tokenId);
      const dry = await dryRun(vendor, body, key);
      expect(dry.status).toBeGreaterThanOrEqual(400);
      expect(await stateOf(vendor.vendor.id)).toEqual(before);
      expect(await bucketCount('write', vendor.tokenId)).toBe(writes);
      const answered = await real(vendor, body, key);
      expect(answerOf(dry)).toEqual(answerOf(answered));
      // Velocity's Retry-After is counted from the instant of each request: the same within the second that may pass between them.
      if (answered.headers['retry-after'] !== undefined) expect(Math.abs(Number(dry.headers['retry-after']) - Number(answered.headers['retry-after']))).toBeLessThanOrEqual(1);
      // The refusal of the real call stored nothing either.
      expect(await stateOf(vendor.vendor.id)).toEqual(before);
    } finally {
      await cleanUp?.();
    }
  });

  it.each([
    ['PROVIDER_NOT_CONFIGURED (production without provider settings)', false, true],
    ['VENDOR_NOT_RELEASED (production, a vendor not yet accepted)', true, false],
  ])('answers %s exactly as the real call does, and changes nothing', async (_name, withProvider, released) => {
    const production = await startPurchaseGateway({
      config: {
        APP_ENV: 'production',
        ENCRYPTION_KEYS: `prod1:${randomBytes(32).toString('base64')}`,
        ENCRYPTION_ACTIVE_KEY_ID: 'prod1',
        CALLBACK_BASE_URL: 'https://gateway.example/api/v1/provider/callback',
        CALLBACK_TOKEN,
        ...(withProvider ? { PURCHASE_PROVIDER_BASE_URL: stack.sandbox.url, PURCHASE_PROVIDER_API_KEY: SANDBOX_API_KEY } : {}),
      },
    });
    try {
      const vendor = await stack.vendor({ release: released });
      // The quote comes from the sandbox gateway: production refuses an unreleased vendor's quotes too.
      const request = await fresh(vendor);
      const before = await stateOf(vendor.vendor.id);
      const dry = await dryRun(vendor, request.body, request.key, production);
      expect(dry.status).toBeGreaterThanOrEqual(400);
      expect(await stateOf(vendor.vendor.id)).toEqual(before);
      expect(answerOf(dry)).toEqual(answerOf(await real(vendor, request.body, request.key, production)));
      expect(await stateOf(vendor.vendor.id)).toEqual(before);
    } finally {
      await production.close();
    }
  });

  it('is described in the purchase document next to the real call, with the same body, key and error codes', async () => {
    const document = (await stack.gateway.http().get('/docs-json').expect(200)).body;
    const validate = document.paths['/transactions/validate'].post;
    const create = document.paths['/transactions'].post;
    expect(validate.requestBody).toEqual(create.requestBody);
    expect(validate.parameters).toEqual(create.parameters);
    expect(validate['x-required-abilities']).toEqual(create['x-required-abilities']);
    const codes = (operation: Json) => Object.keys(operation.responses).filter((status) => Number(status) >= 400).map((status) => operation.responses[status].description).sort();
    expect(codes(validate)).toEqual(codes(create));
  });
});
