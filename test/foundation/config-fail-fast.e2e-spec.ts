import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { assertCompiled, freePort, spawnApp, type SpawnedApp } from '../support/reliability/spawned-app.js';

const run = promisify(execFile);

/**
 * Each deployable validates the config groups it uses (libs/config/src/config-groups.ts), so the
 * bad variables are each app's own: the callback token belongs to the purchase provider, which
 * the payout gateway does not use; it gets a bad payout-provider URL instead.
 */
const CASES = [
  { app: 'purchase-gateway', own: { CALLBACK_TOKEN: 'short' }, named: 'CALLBACK_TOKEN must be 64 lowercase hexadecimal characters' },
  { app: 'payout-gateway', own: { PAYOUT_PROVIDER_BASE_URL: 'not a url' }, named: 'PAYOUT_PROVIDER_BASE_URL' },
  { app: 'reconciliation-worker', own: { CALLBACK_TOKEN: 'short' }, named: 'CALLBACK_TOKEN must be 64 lowercase hexadecimal characters' },
];

async function exitOf(entry: string, env: Record<string, string | undefined>): Promise<{ code: number; stderr: string } | null> {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first (npm test does)`);
  return run('node', [entry], { env: { PATH: process.env.PATH, ...env }, timeout: 20_000 }).then(
    () => null,
    (error: { code: number; stderr: string }) => error,
  );
}

/** Every compiled deployable refuses to start on a bad environment, with a readable message. */
describe.each(CASES)('$app with an invalid environment', ({ app, own, named }) => {
  it('exits 78 naming each bad variable, without a stack trace', async () => {
    const failure = await exitOf(`dist/apps/${app}/src/main.js`, { DATABASE_POOL_SIZE: 'plenty', REDIS_URL: 'http://nope', ...own });
    expect(failure).not.toBeNull();
    expect(failure!.code).toBe(78);
    expect(failure!.stderr).toContain('Invalid configuration');
    expect(failure!.stderr).toContain('DATABASE_POOL_SIZE');
    expect(failure!.stderr).toContain(named);
    expect(failure!.stderr).toContain('REDIS_URL');
    expect(failure!.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('settings of another deployable', () => {
  // The purchase provider's settings, all invalid.
  const purchaseOnly = { CALLBACK_TOKEN: 'short', PURCHASE_PROVIDER_BASE_URL: 'not a url', PURCHASE_PROVIDER_TIMEOUT_MS: 'slow' };
  let payout: SpawnedApp | undefined;

  afterAll(async () => {
    await payout?.kill();
  });

  it('do not stop the payout gateway, which does not use them', async () => {
    assertCompiled('payoutGateway');
    payout = spawnApp(
      'payoutGateway',
      { DATABASE_URL: process.env.E2E_DATABASE_URL, REDIS_URL: process.env.E2E_REDIS_URL, QUEUE_PREFIX: process.env.E2E_QUEUE_PREFIX, DATABASE_POOL_SIZE: '2', ...purchaseOnly },
      await freePort(),
    );
    await payout.ready;
    const live = await fetch(`${payout.url}/health/live`);
    expect(live.status).toBe(200);
  });

  it('stop the purchase gateway, which does', async () => {
    const failure = await exitOf('dist/apps/purchase-gateway/src/main.js', { DATABASE_URL: process.env.E2E_DATABASE_URL, REDIS_URL: process.env.E2E_REDIS_URL, ...purchaseOnly });
    expect(failure?.code).toBe(78);
    expect(failure!.stderr).toContain('CALLBACK_TOKEN');
    expect(failure!.stderr).toContain('PURCHASE_PROVIDER_BASE_URL');
    expect(failure!.stderr).toContain('PURCHASE_PROVIDER_TIMEOUT_MS');
  });
});
