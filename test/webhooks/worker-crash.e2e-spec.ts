import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { recordWebhookEvent } from '#webhooks';
import { startPurchaseGateway, type RunningApp } from '../support/apps.js';
import { eventually } from '../support/purchase-stack.js';
import { assertCompiled, spawnApp, type SpawnedApp } from '../support/reliability/spawned-app.js';
import { scanForSecrets } from '../support/reliability/secret-scan.js';
import { bearer, createTestVendor, type TestVendor } from '../support/vendors.js';
import { FAST_WEBHOOKS, startReceiver, type WebhookReceiver } from './webhook-receiver.js';

/**
 * The compiled worker is SIGKILLed while a delivery is in flight (the receiver holds the
 * response open): a second worker delivers the event anyway, from Redis stall recovery or the
 * sweeper's rebuild from PostgreSQL. Nothing is recorded for the killed attempt, and no worker
 * ever logs the endpoint's secret.
 */
describe('webhook delivery survives a worker crash', () => {
  const queuePrefix = `{e2e-hooks-${process.pid}-${Date.now().toString(36)}}`;
  let gateway: RunningApp;
  let vendor: TestVendor;
  let receiver: WebhookReceiver;
  const workers: SpawnedApp[] = [];

  const workerEnv = (): Record<string, string> => ({
    DATABASE_URL: process.env.E2E_DATABASE_URL!,
    REDIS_URL: process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: queuePrefix,
    DATABASE_POOL_SIZE: '5',
    PORT: '0',
    WORKER_JOB_LOCK_MS: '2000',
    SHUTDOWN_GRACE_MS: '2000',
    ...FAST_WEBHOOKS,
  });

  beforeAll(async () => {
    assertCompiled('worker');
    gateway = await startPurchaseGateway({ config: { QUEUE_PREFIX: queuePrefix } });
    vendor = await createTestVendor(gateway.app, 'Crash vendor');
    receiver = await startReceiver();
  });

  afterAll(async () => {
    for (const worker of workers) await worker.kill('SIGKILL');
    // This file's delivery jobs die with it: later stacks (other test files) must not relay them to a closed receiver.
    await gateway?.app.get(DataSource).query(`UPDATE outbox_messages SET dispatched_at = now() WHERE dispatched_at IS NULL AND job_name = 'webhook.deliver'`).catch(() => undefined);
    await receiver?.close();
    await gateway?.close();
    const redis = new Redis(process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379');
    const keys = await redis.keys(`${queuePrefix}*`).catch(() => [] as string[]);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('loses nothing when the worker is killed mid-delivery', async () => {
    const created = await gateway.http().post('/api/v1/webhook-endpoints').set(bearer(vendor.token)).send({ url: receiver.url, events: ['transaction.completed'] }).expect(201);
    const secret = created.body.data.secret as string;
    // The first request is held open until the worker dies; later ones are answered.
    receiver.respond = (index) => (index === 0 ? 'hang' : 200);

    const db = gateway.app.get(DataSource);
    // The event as the purchase recorder writes it (same function, same transaction shape).
    const resourceId = '6f1c2f4e-3a51-4e27-9d64-1f6a7c0e9b11';
    const eventId = await db.transaction((manager) =>
      recordWebhookEvent(manager, { vendorId: vendor.vendor.id, type: 'transaction.completed', resourceId, data: { id: resourceId, status: 'completed' } }),
    );

    const first = spawnApp('worker', workerEnv());
    workers.push(first);
    await first.ready;
    await eventually(async () => receiver.receipts.length, (count) => count >= 1, 30_000);
    expect(receiver.receipts[0]).toMatchObject({ answered: 'hung', event: { id: eventId } });
    const exit = await first.kill('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    const [inFlight] = await db.query(`SELECT status, attempts FROM webhook_deliveries WHERE event_id = $1`, [eventId]);
    expect(inFlight).toEqual({ status: 'pending', attempts: 0 });

    const second = spawnApp('worker', workerEnv());
    workers.push(second);
    await second.ready;
    const delivered = await eventually(
      async () => (await db.query(`SELECT status, attempts, last_http_status FROM webhook_deliveries WHERE event_id = $1`, [eventId]))[0],
      (row: { status: string }) => row.status === 'delivered',
      45_000,
      200,
    );
    expect(delivered).toEqual({ status: 'delivered', attempts: 1, last_http_status: 200 });
    const answered = receiver.receipts.filter((receipt) => receipt.event.id === eventId && receipt.answered === 200);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    // Same event id and body as the interrupted attempt: receivers dedupe on it.
    expect(answered[0].body).toBe(receiver.receipts[0].body);
    await second.kill('SIGTERM');

    const output = workers.map((worker) => worker.output()).join('\n');
    expect(output).toMatch(/Webhook delivered/);
    expect(scanForSecrets(output, [{ kind: 'token', value: secret }, { kind: 'token', value: vendor.token }])).toEqual([]);
    expect(output).not.toContain('whsec_');
  }, 120_000);
});
