import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { assertCompiled, freePort, spawnApp, type SpawnedApp } from '../support/reliability/spawned-app.js';

const exec = promisify(execFile);
const OPS = 'dist/apps/ops/src/main.js';
// An upper bound: the load is stopped a moment after the old gateway has exited.
const LOAD_SECONDS = 45;
const RATE_PER_SECOND = 150;

/**
 * A rolling restart as Kubernetes does it with maxUnavailable: 0: while steady load runs through
 * a Service, a new gateway process starts and joins only once /health/ready answers; then the old
 * one leaves the endpoints and, after the preStop delay, gets SIGTERM and drains. The "Service"
 * here is a small keep-alive reverse proxy (like ingress-nginx with upstream keep-alive) that
 * routes each request to a ready endpoint. The target is zero failed requests.
 */
describe('rolling restart of the purchase gateway under load', () => {
  const gateways: SpawnedApp[] = [];
  let env: Record<string, string | undefined>;
  let token: string;

  beforeAll(async () => {
    assertCompiled('purchaseGateway');
    env = {
      DATABASE_URL: process.env.E2E_DATABASE_URL,
      REDIS_URL: process.env.E2E_REDIS_URL,
      QUEUE_PREFIX: process.env.E2E_QUEUE_PREFIX,
      DATABASE_POOL_SIZE: '4',
      // The subject is availability, not the per-token budget.
      RATE_LIMIT_READ_PER_MINUTE: '1000000',
      SHUTDOWN_GRACE_MS: '10000',
    };
    const ops = async (...args: string[]) =>
      JSON.parse((await exec(process.execPath, [OPS, ...args], { env: { PATH: process.env.PATH, APP_ENV: 'test', LOG_LEVEL: 'silent', ...env } })).stdout);
    const vendor = (await ops('vendor:create', '--name', 'Rolling restart')) as { id: string };
    token = ((await ops('token:create', '--vendor', vendor.id, '--abilities', 'catalogue:read')) as { token: string }).token;
  });

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.kill('SIGKILL')));
  });

  async function startGateway(): Promise<SpawnedApp> {
    const gateway = spawnApp('purchaseGateway', env, await freePort());
    gateways.push(gateway);
    await gateway.ready;
    // The readiness probe decides when the endpoint joins, as the kubelet does.
    for (;;) {
      const status = await fetch(`${gateway.url}/health/ready`).then((response) => response.status, () => 0);
      if (status === 200) return gateway;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('finishes a request in flight when SIGTERM arrives, then exits 0', async () => {
    const gateway = await startGateway();
    // Hold the request inside the gateway: the catalogue read waits for this lock.
    const blocker = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE purchase_services IN ACCESS EXCLUSIVE MODE');
      const inFlight = fetch(`${gateway.url}/api/v1/services`, { headers: { authorization: `Bearer ${token}` } });
      // A backend of this run's database waiting for a lock (the query text may still show its
      // previous statement while it plans the new one, so it is not matched on).
      const waiting = async () =>
        ((await blocker.query(`SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`)).rows[0] as { count: number }).count;
      while ((await waiting()) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      const exit = gateway.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // Still draining: the listener is closed to new connections, the held request is not cut.
      expect(gateway.child.exitCode).toBeNull();
      await blocker.query('COMMIT');
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(await exit).toEqual({ code: 0, signal: null });
    } finally {
      await blocker.end();
    }
  }, 30_000);

  it('answers every request while the only gateway is replaced', async () => {
    const endpoints: SpawnedApp[] = [await startGateway()];
    const upstreamAgent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    let proxyErrors = 0;
    let turn = 0;
    // Requests routed to each endpoint, so the test can show the load spanned the whole rollout
    // (a request count against a target rate would be a timing assertion on a shared CI machine).
    const routed = new Map<SpawnedApp, number>();
    const service = http.createServer((request, response) => {
      const target = endpoints[turn++ % endpoints.length];
      routed.set(target, (routed.get(target) ?? 0) + 1);
      const upstream = http.request(
        { host: '127.0.0.1', port: target.port, method: request.method, path: request.url, headers: request.headers, agent: upstreamAgent },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => {
        proxyErrors += 1;
        if (!response.headersSent) response.writeHead(502);
        response.end();
      });
      request.pipe(upstream);
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', () => resolve()));
    const serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;

    const load = autocannon({
      url: `${serviceUrl}/api/v1/services`,
      headers: { authorization: `Bearer ${token}` },
      connections: 8,
      overallRate: RATE_PER_SECOND,
      duration: LOAD_SECONDS,
    });

    // The rollout, a few seconds into the load: surge one new pod, then retire the old one.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const old = endpoints[0];
    const replacement = await startGateway();
    endpoints.push(replacement);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    endpoints.splice(endpoints.indexOf(old), 1);
    // preStop sleep: the endpoint removal reaches every proxy before the process is told to stop.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const exit = await old.kill('SIGTERM');
    const routedBeforeExit = routed.get(replacement) ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    load.stop();

    const result = await load;
    upstreamAgent.destroy();
    await new Promise((resolve) => service.close(resolve));

    const figures = {
      requests: result.requests.total,
      rate: result.requests.average,
      toOld: routed.get(old) ?? 0,
      toReplacement: routed.get(replacement) ?? 0,
      toReplacementAfterOldExited: (routed.get(replacement) ?? 0) - routedBeforeExit,
      errors: result.errors,
      timeouts: result.timeouts,
      non2xx: result.non2xx,
      proxyErrors,
    };
    process.stdout.write(`rolling restart: ${JSON.stringify(figures)}\n`);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(old.output()).toMatch(/Drained; exiting/);
    // Load reached the old gateway, the replacement while both served, and went on after the old exited.
    expect(figures.toOld).toBeGreaterThan(0);
    expect(routedBeforeExit).toBeGreaterThan(0);
    expect(figures.toReplacementAfterOldExited).toBeGreaterThan(0);
    expect({ errors: figures.errors, timeouts: figures.timeouts, non2xx: figures.non2xx, proxyErrors }).toEqual({ errors: 0, timeouts: 0, non2xx: 0, proxyErrors: 0 });
  }, 90_000);
});
