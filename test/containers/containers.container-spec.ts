import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { MIGRATIONS } from '../../libs/database/src/migrations/index.js';
import { cashPayout, uniqueReference } from '../payout/payout-requests.js';
import { eventually, PRODUCTS } from '../support/purchase-stack.js';
import { freePort } from '../support/reliability/spawned-app.js';
import { inspect, logs, podman, remove, runOnce, start } from './podman.js';

/**
 * The system run from its images only, as a platform team would run it: the migrate image
 * prepares a fresh database, every app image runs hardened (read-only root, uid 1000, no
 * capabilities, the image's own NODE_OPTIONS), a purchase and payouts go through the
 * containers, the invariant checker (from the ops image) finds the books consistent, and every
 * app drains and exits 0 on `podman stop`.
 */
const APPS = ['provider-sandbox', 'purchase-gateway', 'payout-gateway', 'reconciliation-worker', 'vendor-dashboard', 'back-office'] as const;
type App = (typeof APPS)[number];
const STOP_TIMEOUT_S = 35; // compose's stop_grace_period; the apps drain within SHUTDOWN_GRACE_MS
const run = `${process.pid}-${Date.now().toString(36)}`;
const containerName = (app: App) => `za-ct-${app}-${run}`;

describe('the system from its container images', () => {
  const port = {} as Record<App, number>;
  let databaseUrl: string;
  let adminUrl: URL;
  let databaseName: string;
  let env: Record<string, string>;
  let tokens: { vendor_id: string; purchase: { token: string }; payout: { token: string }; dashboard: { email: string; password: string } };
  const url = (app: App, path: string) => `http://127.0.0.1:${port[app]}${path}`;
  /** The dashboard and back-office answer /health/* and /metrics only on their operational port. */
  const operationalPort = {} as Partial<Record<App, number>>;
  const operationalUrl = (app: App, path: string) => `http://127.0.0.1:${operationalPort[app] ?? port[app]}${path}`;

  beforeAll(async () => {
    adminUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/gateway');
    databaseName = `gateway_containers_${run.replace(/-/g, '_')}`;
    adminUrl.pathname = '/postgres';
    const admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${databaseName}"`);
    await admin.end();
    const target = new URL(adminUrl);
    target.pathname = `/${databaseName}`;
    databaseUrl = target.toString();
    for (const app of APPS) port[app] = await freePort();
    for (const app of ['vendor-dashboard', 'back-office'] as App[]) operationalPort[app] = await freePort();
    env = {
      APP_ENV: 'development',
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: '4',
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: `{ct-${run}}`,
      PURCHASE_PROVIDER_BASE_URL: `http://127.0.0.1:${port['provider-sandbox']}/dvs/v1`,
      PAYOUT_PROVIDER_BASE_URL: `http://127.0.0.1:${port['provider-sandbox']}`,
      CALLBACK_BASE_URL: `http://127.0.0.1:${port['purchase-gateway']}/api/v1/provider/callback`,
      SHUTDOWN_GRACE_MS: '25000',
    };
  });

  afterAll(async () => {
    await remove(APPS.map(containerName));
    const admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  });

  it('runs every image on the pinned Node 24, with no shell or npm in it', async () => {
    const pinned = /^version (\S+)$/m.exec(readFileSync('scripts/node/pinned-node.txt', 'utf8'))![1];
    for (const target of [...APPS, 'ops', 'migrate']) {
      const version = await runOnce(target, {}, ['node', '--version']);
      expect({ target, version: version.stdout.trim() }).toEqual({ target, version: `v${pinned}` });
      // The runtime root holds node, its libraries and tini only (docker/runtime-root.sh).
      for (const tool of ['sh', 'npm']) expect({ target, tool, code: (await runOnce(target, {}, [tool, '--version'])).code }).not.toEqual({ target, tool, code: 0 });
    }
  });

  it('migrates a fresh database with the migrate image', async () => {
    const result = await runOnce('migrate', { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' });
    expect(result).toMatchObject({ code: 0 });
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const [{ count }] = (await client.query(`SELECT count(*)::int AS count FROM schema_migrations`)).rows as { count: number }[];
      expect(count).toBe(MIGRATIONS.length);
    } finally {
      await client.end();
    }
  });

  it('starts every app image hardened, and each answers /health/ready', async () => {
    for (const app of APPS) {
      await start(containerName(app), app, { ...env, PORT: String(port[app]), ...(operationalPort[app] ? { OPERATIONAL_PORT: String(operationalPort[app]) } : {}) });
    }
    for (const app of APPS) {
      const container = await inspect(containerName(app));
      expect(container.Config.User).toBe('1000:1000');
      expect(container.HostConfig.ReadonlyRootfs).toBe(true);
      expect(container.Config.Env).toContain('NODE_OPTIONS=--max-old-space-size=128 --max-semi-space-size=16');
      const ready = await eventually(
        () => fetch(operationalUrl(app, '/health/ready')).then((response) => response.status, () => 0),
        (status) => status === 200,
        60_000,
        500,
      ).catch(async (error: Error) => {
        throw new Error(`${app} never became ready: ${error.message}\n${(await logs(containerName(app))).slice(-3000)}`);
      });
      expect(ready).toBe(200);
    }
  }, 180_000);

  it('seeds a demo vendor with the ops image', async () => {
    const result = await runOnce('ops', env, ['node', 'dist/apps/ops/src/main.js', 'demo:seed', '--vendor-name', `containers-${run}`]);
    expect(result.code).toBe(0);
    tokens = JSON.parse(result.stdout);
    expect(tokens.purchase.token).toMatch(/^gwt_/);
  });

  it('completes a purchase: gateway container admits, worker container submits and verifies', async () => {
    const auth = { authorization: `Bearer ${tokens.purchase.token}`, 'content-type': 'application/json' };
    const quote = await fetch(url('purchase-gateway', '/api/v1/quotes'), {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ product_id: PRODUCTS.fixedAirtime, credit_party_identifier: { mobile_number: '27821234588' } }),
    });
    expect(quote.status).toBe(201);
    const quoteId = ((await quote.json()) as { data: { id: string } }).data.id;
    const admitted = await fetch(url('purchase-gateway', '/api/v1/transactions'), {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ quote_id: quoteId, reference: uniqueReference('ct-purchase') }),
    });
    expect(admitted.status).toBe(202);
    const transactionId = ((await admitted.json()) as { data: { id: string } }).data.id;
    const settled = await eventually(
      async () => ((await (await fetch(url('purchase-gateway', `/api/v1/transactions/${transactionId}`), { headers: auth })).json()) as { data: { status: string } }).data.status,
      (status) => status === 'completed',
      60_000,
      250,
    );
    expect(settled).toBe('completed');
  }, 90_000);

  it('pays a single cash payout and a batch of 50 through the payout containers', async () => {
    const auth = { authorization: `Bearer ${tokens.payout.token}`, 'content-type': 'application/json' };
    const single = await fetch(url('payout-gateway', '/api/v1/payouts'), { method: 'POST', headers: auth, body: JSON.stringify(cashPayout('55', { amount: '20.00' })) });
    expect(single.status).toBe(200);
    expect(((await single.json()) as { data: { status: string } }).data.status).toBe('paid');

    const batchReference = uniqueReference('ct-batch');
    const payouts = Array.from({ length: 50 }, () => cashPayout('55', { amount: '10.00' }));
    const accepted = await fetch(url('payout-gateway', '/api/v1/batches'), { method: 'POST', headers: auth, body: JSON.stringify({ reference: batchReference, payouts }) });
    expect(accepted.status).toBe(202);
    const batch = await eventually(
      async () => ((await (await fetch(url('payout-gateway', `/api/v1/batches/${batchReference}`), { headers: auth })).json()) as { data: { status: string; payouts: { status: string }[] } }).data,
      (read) => read.status !== 'processing',
      90_000,
      500,
    );
    expect(batch.status).toBe('completed');
    expect(batch.payouts.filter((payout) => payout.status === 'paid')).toHaveLength(50);
  }, 120_000);

  it("signs the demo owner in to the dashboard container and shows the vendor's purchases", async () => {
    const signInPage = await fetch(url('vendor-dashboard', '/sign-in'));
    expect(signInPage.status).toBe(200);
    // APP_ENV=development here: plain cookie names, no Secure flag (the browser tests cover Secure).
    const pre = /dash_pre=([^;]+)/.exec(signInPage.headers.get('set-cookie') ?? '')![1];
    const field = /name="_pre" value="([^"]+)"/.exec(await signInPage.text())![1];
    const signedIn = await fetch(url('vendor-dashboard', '/sign-in'), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `dash_pre=${pre}` },
      body: new URLSearchParams({ email: tokens.dashboard.email, password: tokens.dashboard.password, _pre: field }).toString(),
    });
    expect(signedIn.status).toBe(303);
    const session = /dash_session=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')![1];
    const purchases = await fetch(url('vendor-dashboard', '/purchases?status=completed'), { headers: { cookie: `dash_session=${session}` } });
    expect(purchases.status).toBe(200);
    expect(await purchases.text()).toMatch(/1 purchases, newest first/);
  });

  it('creates a staff admin with the ops image; the back-office container serves the one-time setup link and the review-queue gauges', async () => {
    const result = await runOnce('ops', env, ['node', 'dist/apps/ops/src/main.js', 'staff:create', '--email', `admin-${run}@staff.example`, '--role', 'admin', '--base-url', url('back-office', '')]);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout) as { setup_url: string };
    const setup = await fetch(created.setup_url);
    expect(setup.status).toBe(200);
    expect(await setup.text()).toContain(`admin-${run}@staff.example`);
    // A vendor's dashboard credentials mean nothing here.
    expect((await fetch(url('back-office', '/'), { redirect: 'manual' })).status).toBe(303);
    expect(await (await fetch(operationalUrl('back-office', '/metrics'))).text()).toMatch(/^review_queue_items\{queue="payouts"\} \d+$/m);
    expect((await fetch(url('back-office', '/metrics'))).status).toBe(404);
  });

  it('finds the books consistent with the invariant checker from the ops image', async () => {
    const result = await runOnce('ops', env, ['node', 'dist/libs/invariants/src/check-invariants.js', '--sandbox', `http://127.0.0.1:${port['provider-sandbox']}`]);
    const report = JSON.parse(result.stdout) as { ok: boolean };
    expect(report).toMatchObject({ ok: true });
    expect(result.code).toBe(0);
  }, 60_000);

  it('drains and exits 0 within the grace period when each app container is stopped', async () => {
    const stopTimes: string[] = [];
    for (const app of [...APPS].reverse()) {
      const startedAt = Date.now();
      await podman(['stop', '-t', String(STOP_TIMEOUT_S), containerName(app)], (STOP_TIMEOUT_S + 10) * 1000);
      const stoppedInMs = Date.now() - startedAt;
      const container = await inspect(containerName(app));
      const output = await logs(containerName(app));
      // On failure the end of the app's log says what held the drain.
      expect({ app, exitCode: container.State.ExitCode, log: container.State.ExitCode === 0 ? '' : output.slice(-4000) }).toEqual({ app, exitCode: 0, log: '' });
      expect(stoppedInMs).toBeLessThan(STOP_TIMEOUT_S * 1000);
      expect(output).toMatch(/Drained; exiting/);
      stopTimes.push(`${app} ${stoppedInMs} ms`);
    }
    process.stdout.write(`container stop times: ${stopTimes.join(', ')}\n`);
  }, 240_000);
});
