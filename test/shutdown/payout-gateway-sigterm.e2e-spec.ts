import { connect, type Socket } from 'node:net';
import { cashPayout } from '../payout/payout-requests.js';
import { PAYOUT_SANDBOX_KEY, PAYOUT_STACK_CONFIG, startPayoutStack, type PayoutStack } from '../support/payout-stack.js';
import { assertCompiled, freePort, spawnApp } from '../support/reliability/spawned-app.js';
import { bearer } from '../support/vendors.js';

/**
 * The compiled payout gateway drains and exits 0 on SIGTERM after it has served payouts and
 * replays (its per-process LISTEN connection for in-flight replays must not hold the exit), and
 * when a client holds a connection open without sending anything on it.
 */
describe('payout gateway SIGTERM after serving payouts', () => {
  let stack: PayoutStack;

  beforeAll(async () => {
    assertCompiled('payoutGateway');
    stack = await startPayoutStack({ worker: false });
  });
  afterAll(async () => stack?.close());

  const gatewayEnv = () => ({
    DATABASE_URL: process.env.E2E_DATABASE_URL,
    REDIS_URL: process.env.E2E_REDIS_URL,
    QUEUE_PREFIX: process.env.E2E_QUEUE_PREFIX,
    DATABASE_POOL_SIZE: '4',
    PAYOUT_PROVIDER_BASE_URL: stack.sandboxUrl,
    PAYOUT_PROVIDER_API_KEY: PAYOUT_SANDBOX_KEY,
    SHUTDOWN_GRACE_MS: '10000',
    ...PAYOUT_STACK_CONFIG,
  });

  it('drains and exits 0', async () => {
    const vendor = await stack.vendor({ fundCents: 1_000_000n });
    const gateway = spawnApp('payoutGateway', gatewayEnv(), await freePort());
    try {
      await gateway.ready;
      const request = cashPayout('55', { amount: '20.00' });
      const post = () =>
        fetch(`${gateway.url}/api/v1/payouts`, { method: 'POST', headers: { ...bearer(vendor.token), 'content-type': 'application/json' }, body: JSON.stringify(request) });
      const [first, replay] = await Promise.all([post(), post()]);
      expect([first.status, replay.status]).toEqual([200, 200]);
      const batch = await fetch(`${gateway.url}/api/v1/batches`, {
        method: 'POST',
        headers: { ...bearer(vendor.token), 'content-type': 'application/json' },
        body: JSON.stringify({ reference: `sigterm-${Date.now()}`, payouts: [cashPayout('55', { amount: '10.00' })] }),
      });
      expect(batch.status).toBe(202);
      const exit = await gateway.kill('SIGTERM');
      expect({ exit, drained: /Drained; exiting/.test(gateway.output()) }).toEqual({ exit: { code: 0, signal: null }, drained: true });
    } finally {
      await gateway.kill('SIGKILL');
    }
  }, 60_000);

  it('closes a connection that never sent a request instead of waiting on it for the whole grace period', async () => {
    const gateway = spawnApp('payoutGateway', gatewayEnv(), await freePort());
    try {
      await gateway.ready;
      // As a proxy's pre-opened connection: connected, silent. Node does not count it as idle.
      const silent = await new Promise<Socket>((resolve, reject) => {
        const socket = connect(Number(new URL(gateway.url).port), '127.0.0.1', () => resolve(socket)).on('error', reject);
      });
      const closedByServer = new Promise<void>((resolve) => silent.once('close', () => resolve()));
      const exit = await gateway.kill('SIGTERM');
      await closedByServer;
      expect({ exit, drained: /Drained; exiting/.test(gateway.output()) }).toEqual({ exit: { code: 0, signal: null }, drained: true });
    } finally {
      await gateway.kill('SIGKILL');
    }
  }, 60_000);
});
