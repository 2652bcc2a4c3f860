import { setTimeout as sleep } from 'node:timers/promises';
import { settleWithin } from '#common';
import { FaultProxy } from '../support/reliability/fault-proxy.js';
import { startReliabilityStack } from '../support/reliability/reliability-stack.js';

const GRACE_MS = 4_000;

/**
 * The worker is told to stop while Redis cannot be reached: its BullMQ workers' connections are
 * stuck reconnecting, and BullMQ's Worker.close() does not settle in that state
 * (taskforcesh/bullmq#4656). The app must still finish closing within its shutdown grace instead
 * of hanging until the orchestrator kills it (WorkerRuntime bounds each worker's close).
 */
describe('worker shutdown while Redis is unreachable', () => {
  it('finishes closing within its shutdown grace', async () => {
    const redisUrl = process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379';
    const proxy = await FaultProxy.forUrl(redisUrl);
    const stack = await startReliabilityStack({ redisUrl: proxy.proxied(redisUrl), config: { SHUTDOWN_GRACE_MS: String(GRACE_MS) } });
    try {
      proxy.setMode('refuse');
      proxy.cutAll();
      // Long enough for every client to see the cut and start reconnecting.
      await sleep(1_500);
      const started = Date.now();
      const closed = await settleWithin(stack.stopWorker(), 4 * GRACE_MS);
      process.stdout.write(`worker close with Redis unreachable: ${closed ? `${Date.now() - started} ms` : 'did not finish'}\n`);
      expect(closed).toBe(true);
    } finally {
      proxy.setMode('pass');
      await stack.close();
      await proxy.close();
    }
  }, 60_000);
});
