import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);
const APPS = ['purchase-gateway', 'payout-gateway', 'reconciliation-worker'];

/** Every compiled deployable refuses to start on a bad environment, with a readable message. */
describe.each(APPS)('%s with an invalid environment', (app) => {
  const entry = `dist/apps/${app}/src/main.js`;

  it('exits 78 naming each bad variable, without a stack trace', async () => {
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first (npm test does)`);
    const failure = await run('node', [entry], {
      env: { PATH: process.env.PATH, DATABASE_POOL_SIZE: 'plenty', CALLBACK_TOKEN: 'short', REDIS_URL: 'http://nope' },
      timeout: 20_000,
    }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).not.toBeNull();
    expect(failure!.code).toBe(78);
    expect(failure!.stderr).toContain('Invalid configuration');
    expect(failure!.stderr).toContain('DATABASE_POOL_SIZE');
    expect(failure!.stderr).toContain('CALLBACK_TOKEN must be 64 lowercase hexadecimal characters');
    expect(failure!.stderr).toContain('REDIS_URL');
    expect(failure!.stderr).not.toMatch(/\n\s+at /);
  });
});
