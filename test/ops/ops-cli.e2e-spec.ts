import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { startSandbox, type RunningSandbox } from '../support/purchase-stack.js';

const run = promisify(execFile);
const CLI = 'dist/apps/ops/src/main.js';

/**
 * The operator CLI as staff run it: the compiled program in its own process, against this
 * run's database. `npm test` builds before the e2e tests run.
 */
describe('ops CLI', () => {
  let sandbox: RunningSandbox;
  let db: pg.Client;
  let env: NodeJS.ProcessEnv;

  async function ops(...args: string[]): Promise<{ json: Record<string, unknown>; code: number; stderr: string }> {
    try {
      const { stdout, stderr } = await run('node', [CLI, ...args], { env, timeout: 90_000 });
      return { json: JSON.parse(stdout), code: 0, stderr };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      return { json: {}, code: failure.code, stderr: failure.stderr };
    }
  }

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
    sandbox = await startSandbox();
    env = {
      PATH: process.env.PATH,
      APP_ENV: 'test',
      DATABASE_URL: process.env.E2E_DATABASE_URL,
      REDIS_URL: process.env.E2E_REDIS_URL,
      PURCHASE_PROVIDER_BASE_URL: sandbox.url,
      PAYOUT_PROVIDER_BASE_URL: sandbox.url,
      // Fundings and limit raises up to R1 000.00 apply at once; above it they are four-eyes
      // proposals (test/ops/ops-four-eyes.e2e-spec.ts).
      STAFF_FOUR_EYES_ABOVE_CENTS: '100000',
    };
    db = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await sandbox?.close();
  });

  it('creates a vendor, issues a token stored only as a hash, and revokes it', async () => {
    const vendor = await ops('vendor:create', '--name', 'CLI vendor');
    expect(vendor.json).toEqual({ id: expect.any(String), name: 'CLI vendor' });

    const token = await ops('token:create', '--vendor', vendor.json.id as string, '--abilities', 'catalogue:read,payouts:read', '--expires-in', '7d');
    expect(token.json).toMatchObject({ id: expect.any(String), token: expect.stringMatching(/^gwt_/), abilities: ['catalogue:read', 'payouts:read'] });
    const { rows } = await db.query('SELECT token_hash, revoked_at FROM api_tokens WHERE id = $1', [token.json.id]);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(token.json.token as string);

    const revoked = await ops('token:revoke', '--id', token.json.id as string);
    expect(revoked.json).toMatchObject({ id: token.json.id, revoked_at: expect.any(String) });
  });

  it('rejects bad input with a clear message and a non-zero exit', async () => {
    const badVendor = await ops('token:create', '--vendor', 'nope', '--abilities', 'catalogue:read');
    expect(badVendor.code).not.toBe(0);
    expect(badVendor.stderr).toContain('--vendor must be a UUID');

    const vendor = await ops('vendor:create', '--name', 'Strict vendor');
    const badAbility = await ops('token:create', '--vendor', vendor.json.id as string, '--abilities', 'money:print');
    expect(badAbility.code).not.toBe(0);
    expect(badAbility.stderr).toContain('unknown abilities: money:print');

    const badAmount = await ops('payout:fund', '--vendor', vendor.json.id as string, '--amount', '1e3');
    expect(badAmount.code).not.toBe(0);
    expect(badAmount.stderr).toContain('two decimals');
  });

  it('seeds a demo vendor with catalogue, pricing, spend controls, release, funding and methods', async () => {
    const seeded = await ops('demo:seed', '--vendor-name', 'CLI demo');
    expect(seeded.code).toBe(0);
    expect(seeded.json).toMatchObject({
      vendor_id: expect.any(String),
      // Each base_url equals servers[0].url of its gateway's /docs-json (issue 25): the purchase base
      // address includes /api/v1 (its paths are relative to it), the payout one is the origin.
      purchase: { base_url: 'http://127.0.0.1:3000/api/v1', token: expect.stringMatching(/^gwt_test_[A-Za-z0-9_-]{43}$/) },
      payout: { base_url: 'http://127.0.0.1:3001', token: expect.stringMatching(/^gwt_test_[A-Za-z0-9_-]{43}$/) },
    });
    const vendorId = seeded.json.vendor_id as string;
    const [{ rows: vendor }, { rows: account }, { rows: tokens }] = await Promise.all([
      db.query('SELECT production_released_at FROM vendors WHERE id = $1', [vendorId]),
      db.query('SELECT available_cents FROM payout_accounts WHERE vendor_id = $1', [vendorId]),
      db.query('SELECT token_hash, abilities FROM api_tokens WHERE vendor_id = $1', [vendorId]),
    ]);
    expect(vendor[0].production_released_at).not.toBeNull();
    expect(account[0].available_cents).toBe('10000000');
    expect(tokens).toHaveLength(2);
    // Least privilege: purchase abilities on the purchase token, payout scopes on the payout token.
    const abilitiesOf = (token: string) => tokens.find((row) => row.token_hash === createHash('sha256').update(token).digest('hex'))?.abilities;
    const purchase = seeded.json.purchase as { token: string };
    const payout = seeded.json.payout as { token: string };
    expect(abilitiesOf(purchase.token)).toEqual(['catalogue:read', 'lookups:read', 'quotes:write', 'transactions:write', 'transactions:read', 'fulfilment:read', 'limits:read', 'reports:read', 'webhooks:read', 'webhooks:write']);
    expect(abilitiesOf(payout.token)).toEqual(['payouts:read', 'payouts:write', 'payouts:delivery', 'webhooks:read', 'webhooks:write']);

    const funded = await ops('payout:fund', '--vendor', vendorId, '--amount', '250.75');
    expect(funded.json).toMatchObject({ availableCents: '10025075' });
    const methods = await ops('payout:methods', '--vendor', vendorId, '--disable', 'rtc_eft', '--fee', 'bank_a_instant_money=1.50');
    const settings = methods.json.methods as { method: string; enabled: boolean; feeCents: string | null }[];
    expect(settings.find((method) => method.method === 'rtc_eft')?.enabled).toBe(false);
    expect(settings.find((method) => method.method === 'bank_a_instant_money')?.feeCents).toBe('150');
    const limits = await ops('limits:set', '--vendor', vendorId, '--daily-cap-minor', '1000', '--transaction-max-minor', '500', '--velocity-count', '5', '--velocity-window-seconds', '60');
    expect(limits.json).toMatchObject({ daily_cap_minor: 1000, transaction_max_minor: 500 });
    const paused = await ops('purchases:pause', '--vendor', vendorId);
    expect(paused.json).toMatchObject({ paused: true });
  });

  it('payout:methods tightens per-method limits, prints the effective ones, and refuses loosening beyond the catalogue with a clear error', async () => {
    const vendor = await ops('vendor:create', '--name', 'Limits vendor');
    const vendorId = vendor.json.id as string;
    type Setting = { method: string; minimum: string; maximum: string; minimumCents: string; maximumCents: string };
    const of = (json: Record<string, unknown>, method: string) => (json.methods as Setting[]).find((setting) => setting.method === method)!;

    const tightened = await ops('payout:methods', '--vendor', vendorId, '--enable', 'bank_a_instant_money,rtc_eft', '--min', 'bank_a_instant_money=50.00', '--max', 'bank_a_instant_money=500.00', '--max', 'rtc_eft=10000.00');
    expect(tightened.code).toBe(0);
    expect(of(tightened.json, 'bank_a_instant_money')).toMatchObject({ minimum: '50.00', maximum: '500.00', minimumCents: '5000', maximumCents: '50000' });
    expect(of(tightened.json, 'rtc_eft')).toMatchObject({ minimum: '1.00', maximum: '10000.00' });
    const { rows } = await db.query('SELECT minimum_cents, maximum_cents FROM payout_vendor_methods WHERE vendor_id = $1 AND method = $2', [vendorId, 'bank_a_instant_money']);
    expect(rows[0]).toEqual({ minimum_cents: '5000', maximum_cents: '50000' });

    // Beyond the catalogue (cash: 10.00 to 3000.00), off the R10 increment, or crossed: refused, nothing changed.
    for (const [args, message] of [
      [['--max', 'bank_a_instant_money=5000.00'], 'maximum must be within 10.00 and 3000.00 (limits can only be tightened)'],
      [['--min', 'bank_a_instant_money=5.00'], 'minimum must be within 10.00 and 3000.00 (limits can only be tightened)'],
      [['--min', 'bank_a_instant_money=55.00'], 'minimum must be a multiple of 10.00'],
      [['--min', 'bank_a_instant_money=600.00'], 'minimum must not exceed maximum'],
      [['--min', 'paypal=10.00'], 'unknown method'],
      [['--max', 'bank_a_instant_money'], '--max takes method=amount'],
      [['--max', 'bank_a_instant_money=1e3'], '--max must be a ZAR amount with two decimals'],
    ] as const) {
      const refused = await ops('payout:methods', '--vendor', vendorId, ...args);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(message);
    }
    const { rows: unchanged } = await db.query('SELECT minimum_cents, maximum_cents FROM payout_vendor_methods WHERE vendor_id = $1 AND method = $2', [vendorId, 'bank_a_instant_money']);
    expect(unchanged[0]).toEqual({ minimum_cents: '5000', maximum_cents: '50000' });

    // `catalogue` removes the vendor's own limit.
    const reset = await ops('payout:methods', '--vendor', vendorId, '--max', 'bank_a_instant_money=catalogue');
    expect(of(reset.json, 'bank_a_instant_money')).toMatchObject({ minimum: '50.00', maximum: '3000.00' });
  });
});
