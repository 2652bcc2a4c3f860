import { startPayoutGateway } from '../support/apps.js';
import { eventually, PAYOUT_SANDBOX_KEY, PAYOUT_STACK_CONFIG, startPayoutStack, type PayoutStack } from '../support/payout-stack.js';
import { FaultProxy } from '../support/reliability/fault-proxy.js';
import { bearer } from '../support/vendors.js';
import { cashPayout, FIXED_MESSAGES } from './payout-requests.js';

/**
 * The payout API's per-token rate limits: the purchase gateway's read and write buckets, with
 * their own code API_RATE_LIMITED (issue 25: the contract's RATE_LIMITED means an SMS resend
 * cooldown) and fixed message, in the payout envelope; and, as on
 * the purchase gateway, no request served while Redis cannot count it.
 */
describe('payout API rate limits', () => {
  let stack: PayoutStack;

  beforeAll(async () => {
    stack = await startPayoutStack({ worker: false, config: { RATE_LIMIT_READ_PER_MINUTE: '3', RATE_LIMIT_WRITE_PER_MINUTE: '2' } });
  });
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  const payoutsOf = async (vendorId: string) => (await stack.dataSource.query(`SELECT count(*)::int AS n FROM payouts WHERE vendor_id = $1`, [vendorId]))[0].n as number;

  it('limits reads and writes per token in separate buckets with 429 API_RATE_LIMITED and Retry-After; a refused write creates nothing', async () => {
    // Fixed one-minute windows: start well inside one so the burst cannot straddle two.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
    const vendor = await stack.vendor();
    const read = () => stack.gateway.http().get('/api/v1/account').set(bearer(vendor.token));
    for (let index = 0; index < 3; index++) await read().expect(200);
    const refused = await read().expect(429);
    expect(refused.body).toEqual({ success: false, code: 'API_RATE_LIMITED', message: FIXED_MESSAGES.API_RATE_LIMITED, errors: {} });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    const write = () => stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout('55', { amount: '20.00' }));
    await write().expect(200);
    await write().expect(200);
    const balanceBefore = await stack.dataSource.query(`SELECT available_cents, reserved_cents FROM payout_accounts WHERE vendor_id = $1`, [vendor.vendor.id]);
    const refusedWrite = await write().expect(429);
    expect(refusedWrite.body.code).toBe('API_RATE_LIMITED');
    expect(Number(refusedWrite.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await payoutsOf(vendor.vendor.id)).toBe(2);
    expect(await stack.dataSource.query(`SELECT available_cents, reserved_cents FROM payout_accounts WHERE vendor_id = $1`, [vendor.vendor.id])).toEqual(balanceBefore);

    // Buckets are per token: another token of the same vendor still reads.
    await stack.gateway.http().get('/api/v1/account').set(bearer(vendor.readWriteToken)).expect(200);
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After while Redis is unreachable, and writes nothing', async () => {
    const redisUrl = process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379';
    const toRedis = await FaultProxy.forUrl(redisUrl);
    const gateway = await startPayoutGateway({
      config: { ...PAYOUT_STACK_CONFIG, PAYOUT_PROVIDER_BASE_URL: stack.sandboxUrl, PAYOUT_PROVIDER_API_KEY: PAYOUT_SANDBOX_KEY, REDIS_URL: toRedis.proxied(redisUrl) },
    });
    try {
      const vendor = await stack.vendor();
      await gateway.http().get('/api/v1/account').set(bearer(vendor.token)).expect(200);
      toRedis.setMode('refuse');
      toRedis.cutAll();
      const refused = await eventually(async () => {
        const response = await gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout('55', { amount: '20.00' }));
        if (response.status !== 503) throw new Error(`still ${response.status}`);
        return response;
      });
      expect(refused.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE', message: expect.any(String), errors: {} });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await gateway.http().get('/api/v1/account').set(bearer(vendor.token))).status).toBe(503);
      // Nothing written and nothing sent to the provider: no payout, the balance untouched.
      expect(await payoutsOf(vendor.vendor.id)).toBe(0);
      expect(await stack.dataSource.query(`SELECT available_cents::text, reserved_cents::text FROM payout_accounts WHERE vendor_id = $1`, [vendor.vendor.id])).toEqual([
        { available_cents: '1000000', reserved_cents: '0' },
      ]);
      // Public routes are not rate limited.
      await gateway.http().get('/health/live').expect(200);

      toRedis.setMode('pass');
      await eventually(async () => {
        const response = await gateway.http().get('/api/v1/account').set(bearer(vendor.token));
        if (response.status !== 200) throw new Error(`still ${response.status}`);
      }, 20_000, 200);
    } finally {
      await gateway.close();
      await toRedis.close();
    }
  });
});
