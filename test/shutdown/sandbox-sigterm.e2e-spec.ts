import { assertCompiled, freePort, spawnApp } from '../support/reliability/spawned-app.js';

/**
 * The compiled provider sandbox exits on SIGTERM within its grace period even when whoever read
 * its logs has gone: `npm run stack` pipes every app through pino-pretty, and Ctrl-C used to
 * leave the sandbox behind, stuck in pino's exit flush retrying a write to the closed pipe
 * (sonic-boom 4 retried every write error for ever; the lock now takes sonic-boom 5, which gives up).
 */
describe('provider sandbox SIGTERM', () => {
  beforeAll(() => assertCompiled('sandbox'));

  it('drains and exits 0 with its log reader gone', async () => {
    const sandbox = spawnApp('sandbox', { SHUTDOWN_GRACE_MS: '10000' }, await freePort());
    try {
      await sandbox.ready;
      // Keep the sandbox logging while its reader disappears, as under the stack's Ctrl-C.
      const traffic = setInterval(() => void fetch(`${sandbox.url}/health/live`).catch(() => undefined), 5);
      await new Promise((resolve) => setTimeout(resolve, 200));
      sandbox.child.stdout!.destroy();
      sandbox.child.stderr!.destroy();
      const started = Date.now();
      const exit = await Promise.race([sandbox.kill('SIGTERM'), new Promise((resolve) => setTimeout(() => resolve('still running after 15 s'), 15_000))]);
      clearInterval(traffic);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await sandbox.kill('SIGKILL');
    }
  }, 40_000);
});
