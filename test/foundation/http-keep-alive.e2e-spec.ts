import http from 'node:http';
import { assertCompiled, freePort, spawnApp, type SpawnedApp } from '../support/reliability/spawned-app.js';

/**
 * A proxy or client that reuses an idle keep-alive connection must find it still open. With
 * Node's default keepAliveTimeout (5 s) the server closes idle connections before any common
 * proxy does (ingress-nginx keeps them 60 s), and a request sent just then is reset (a 502 at
 * the proxy). The compiled gateway is started exactly as in production (main.ts).
 */
describe('HTTP keep-alive of a compiled gateway', () => {
  const started: SpawnedApp[] = [];

  async function startGateway(env: Record<string, string> = {}): Promise<SpawnedApp> {
    const app = spawnApp(
      'purchaseGateway',
      {
        DATABASE_URL: process.env.E2E_DATABASE_URL,
        REDIS_URL: process.env.E2E_REDIS_URL,
        QUEUE_PREFIX: process.env.E2E_QUEUE_PREFIX,
        DATABASE_POOL_SIZE: '2',
        ...env,
      },
      await freePort(),
    );
    started.push(app);
    await app.ready;
    return app;
  }

  /** GET through one keep-alive agent; says whether the request went over a reused connection. */
  function get(agent: http.Agent, url: string): Promise<{ status: number; reusedSocket: boolean }> {
    return new Promise((resolve, reject) => {
      const request = http.get(`${url}/health/live`, { agent }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, reusedSocket: request.reusedSocket }));
      });
      request.on('error', reject);
    });
  }

  const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeAll(() => assertCompiled('purchaseGateway'));
  afterAll(async () => {
    await Promise.all(started.map((app) => app.kill('SIGTERM')));
  });

  it('keeps an idle connection open past Node’s 5 s default, so a client can reuse it', async () => {
    const gateway = await startGateway();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await get(agent, gateway.url)).toEqual({ status: 200, reusedSocket: false });
      // The idle time is the subject of the test, not a wait for something to happen.
      await idle(6_500);
      expect(await get(agent, gateway.url)).toEqual({ status: 200, reusedSocket: true });
    } finally {
      agent.destroy();
    }
  }, 30_000);

  it('applies HTTP_KEEP_ALIVE_TIMEOUT_MS: a shorter setting closes the idle connection', async () => {
    const gateway = await startGateway({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '2000' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await get(agent, gateway.url)).toEqual({ status: 200, reusedSocket: false });
      await idle(2_500);
      expect(await get(agent, gateway.url)).toEqual({ status: 200, reusedSocket: false });
    } finally {
      agent.destroy();
    }
  }, 30_000);
});
