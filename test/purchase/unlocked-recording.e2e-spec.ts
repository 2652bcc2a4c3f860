import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { jobSpec } from '#queues';
// The repository itself: the version guard under test is its statement's WHERE, which the worker
// reaches only when a write races the claim's read.
import { TransactionRepository } from '../../libs/purchase/src/persistence/transaction.repository.js';
import { bearer, PRODUCTS, type PurchaseStack, usePurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { FAST_WEBHOOKS, startReceiver, type WebhookReceiver } from '../webhooks/webhook-receiver.js';
import { mobile, purchase, readTransaction, settle } from './purchase-helpers.js';

/** The webhook event of a status move, and its deliveries' jobs in the outbox, as the database holds them. */
async function webhookEventOf(stack: PurchaseStack, transactionId: string, type: string) {
  const [event] = await stack.db.query(`SELECT id, data FROM webhook_events WHERE resource_id = $1 AND type = $2`, [transactionId, type]);
  if (!event) return undefined;
  const jobs: Array<{ delivery_id: string; seq: number; job_id: string; payload: unknown }> = await stack.db.query(
    `SELECT d.id AS delivery_id, d.seq, o.job_id, o.payload FROM webhook_deliveries d
       JOIN outbox_messages o ON o.job_name = 'webhook.deliver' AND o.payload->>'deliveryId' = d.id::text
      WHERE d.event_id = $1`,
    [event.id],
  );
  return { data: event.data as Record<string, unknown>, jobs };
}

/** The columns a recording of `pending -> completed` writes, at `now`. */
const completionChanges = (now: Date) =>
  new Map<string, unknown>([
    ['last_checked_at', now],
    ['status', 'completed'],
    ['updated_at', now],
    ['completed_at', now],
    ['provider_status', 'COMPLETED'],
  ]);

/** This file's delivery jobs die with it: later stacks (other test files) must not relay them. */
const dropDeliveryJobs = (stack: PurchaseStack) =>
  stack.db.query(`UPDATE outbox_messages SET dispatched_at = now() WHERE dispatched_at IS NULL AND job_name = 'webhook.deliver'`);

const registerEndpoint = (stack: PurchaseStack, vendor: TestVendor, receiver: WebhookReceiver) =>
  stack.gateway
    .http()
    .post('/api/v1/webhook-endpoints')
    .set(bearer(vendor.token))
    .send({ url: receiver.url, events: ['transaction.completed', 'transaction.reversed'] })
    .expect(201);

/**
 * A verification claimed by the worker is recorded from the claim's read of the row, without its
 * lock, as one statement (TransactionRepository.writeIfUnchanged): the row, its status event, the
 * markers it answers, the webhook event with the transaction as the vendor reads it, and each
 * delivery's job. It applies only to the row version the claim read.
 */
describe('purchase recording without the row lock', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver?.close());

  describe('the version guard (no worker)', () => {
    let stack: PurchaseStack;
    let vendor: TestVendor;
    usePurchaseStack((suite) => ({ stack, vendor } = suite), { worker: false, gateway: FAST_WEBHOOKS });
    beforeAll(() => registerEndpoint(stack, vendor, receiver));

    const stored = async (id: string) => ({
      row: (await stack.db.query(`SELECT to_jsonb(t) AS row FROM purchase_transactions t WHERE id = $1`, [id]))[0]?.row,
      events: await stack.db.query(`SELECT id, to_status FROM purchase_transaction_events WHERE transaction_id = $1 ORDER BY id`, [id]),
      markers: await stack.db.query(`SELECT id, processed_at FROM purchase_callback_markers WHERE transaction_id = $1 ORDER BY id`, [id]),
      webhookEvents: await stack.db.query(`SELECT id FROM webhook_events WHERE resource_id = $1`, [id]),
    });

    /** What a recording of `pending -> completed` that answered `marker` wrote: its event, the marker, the webhook event as GET answers the transaction, its delivery's job as the registry builds it. */
    const expectCompletedWrite = async (id: string, marker: string) => {
      const after = await stored(id);
      expect(after.events.map((event: { to_status: string }) => event.to_status)).toEqual(['pending', 'completed']);
      expect(after.markers).toEqual([{ id: marker, processed_at: expect.any(Date) }]);
      const event = await webhookEventOf(stack, id, 'transaction.completed');
      expect(event?.data).toEqual(await readTransaction(stack, vendor, id));
      expect(event?.jobs).toHaveLength(1);
      const [job] = event!.jobs;
      const spec = jobSpec('webhook.deliver', { deliveryId: job.delivery_id, seq: job.seq });
      expect({ id: job.job_id, payload: job.payload }).toEqual({ id: spec.id, payload: spec.payload });
    };

    it('writes nothing when the row moved on since the claim; applied to the version read, it writes the event as GET answers the transaction and jobs as the registry builds them', async () => {
      const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821239911') });
      const id = bought.transaction.id;
      const [marker] = await stack.db.query(`INSERT INTO purchase_callback_markers (transaction_id) VALUES ($1) RETURNING id::text AS id`, [id]);
      const version = async () => (await stack.db.query(`SELECT xmin::text AS version FROM purchase_transactions WHERE id = $1`, [id]))[0].version as string;
      const claimedVersion = await version();
      // Another write of the row after the claim read it (a submission outcome, another recording).
      await stack.db.query(`UPDATE purchase_transactions SET last_checked_at = now() WHERE id = $1`, [id]);
      const before = await stored(id);

      const now = new Date();
      const changes = completionChanges(now);
      const move = { from: 'pending', to: 'completed', providerStatus: 'COMPLETED', reason: 'unlocked recording test' } as const;
      const repository = stack.gateway.app.get(TransactionRepository);
      const claimed = { id, vendorId: vendor.vendor.id, version: claimedVersion };
      expect(await repository.writeIfUnchanged(claimed, changes, move, marker.id)).toBeUndefined();
      expect(await stored(id)).toEqual(before);

      const record = await repository.writeIfUnchanged({ ...claimed, version: await version() }, changes, move, marker.id);
      expect(record).toMatchObject({ id, status: 'completed', providerStatus: 'COMPLETED' });
      await expectCompletedWrite(id, marker.id);
      await dropDeliveryJobs(stack);
    });

    it('writes the recordings of one turn of the event loop that share a shape as ONE statement, each row only at the version its claim read', async () => {
      const numbers = ['27821239921', '27821239922', '27821239923'];
      const ids = (await Promise.all(numbers.map((number) => purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile(number) })))).map((bought) => bought.transaction.id);
      const markers = new Map<string, string>();
      for (const id of ids) {
        const [marker] = await stack.db.query(`INSERT INTO purchase_callback_markers (transaction_id) VALUES ($1) RETURNING id::text AS id`, [id]);
        markers.set(id, marker.id);
      }
      const versions: Array<{ id: string; version: string }> = await stack.db.query(`SELECT id, xmin::text AS version FROM purchase_transactions WHERE id = ANY($1::uuid[])`, [ids]);
      const [stale, ...fresh] = ids;
      // The first one's row moves on after the claim read it.
      await stack.db.query(`UPDATE purchase_transactions SET last_checked_at = now() WHERE id = $1`, [stale]);
      const staleBefore = await stored(stale);

      const now = new Date();
      const repository = stack.gateway.app.get(TransactionRepository);
      const dataSource = stack.gateway.app.get(DataSource);
      const statements = jest.spyOn(dataSource, 'query');
      const records = await Promise.all(
        ids.map((id) => {
          const changes = completionChanges(now);
          const move = { from: 'pending', to: 'completed', providerStatus: 'COMPLETED', reason: `batched recording of ${id}` } as const;
          const version = versions.find((row) => row.id === id)!.version;
          return repository.writeIfUnchanged({ id, vendorId: vendor.vendor.id, version }, changes, move, markers.get(id));
        }),
      );
      const written = statements.mock.calls.map(([text]) => text);
      statements.mockRestore();
      expect(written).toHaveLength(1);
      expect(written[0]).toContain('unnest');

      expect(records[0]).toBeUndefined();
      expect(await stored(stale)).toEqual(staleBefore);
      for (const [index, id] of fresh.entries()) {
        expect(records[index + 1]).toMatchObject({ id, status: 'completed', providerStatus: 'COMPLETED' });
        await expectCompletedWrite(id, markers.get(id)!);
        const [reason] = await stack.db.query(`SELECT reason FROM purchase_transaction_events WHERE transaction_id = $1 AND to_status = 'completed'`, [id]);
        expect(reason.reason).toBe(`batched recording of ${id}`);
      }
      await dropDeliveryJobs(stack);
    });
  });

  describe('the worker', () => {
    let stack: PurchaseStack;
    let vendor: TestVendor;
    usePurchaseStack((suite) => ({ stack, vendor } = suite), { worker: FAST_WEBHOOKS, gateway: FAST_WEBHOOKS });

    afterAll(() => jest.restoreAllMocks());

    it('records a callback-first completion and a reversal from its claims without the row lock, each event carrying the transaction as GET answers it', async () => {
      await registerEndpoint(stack, vendor, receiver);
      const unlocked = jest.spyOn(TransactionRepository.prototype, 'writeIfUnchanged');
      const locked = jest.spyOn(TransactionRepository.prototype, 'lockRecord');
      // Default suffix: completes and calls back; 04: completes, then is reversed with a callback.
      const bought = await Promise.all(['27821239912', '27821239904'].map((number) => purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile(number) })));
      const [completed, reversed] = bought.map((item) => item.transaction.id);
      await settle(stack, vendor, completed, ['completed']);
      await settle(stack, vendor, reversed, ['reversed'], 30_000);

      const written = await Promise.all(unlocked.mock.results.map((result) => result.value as Promise<{ id: string; status: string } | undefined>));
      const writtenFor = (id: string) => written.filter((record) => record?.id === id).map((record) => record!.status);
      expect(writtenFor(completed)).toContain('completed');
      expect(writtenFor(reversed)).toEqual(expect.arrayContaining(['completed', 'reversed']));
      // No recording of either needed the lock.
      expect(locked.mock.calls.filter(([, id]) => id === completed || id === reversed)).toEqual([]);

      expect((await webhookEventOf(stack, completed, 'transaction.completed'))?.data).toEqual(await readTransaction(stack, vendor, completed));
      expect((await webhookEventOf(stack, reversed, 'transaction.reversed'))?.data).toEqual(await readTransaction(stack, vendor, reversed));
      const events: Array<{ to_status: string }> = await stack.db.query(`SELECT to_status FROM purchase_transaction_events WHERE transaction_id = $1 ORDER BY id`, [reversed]);
      expect(events.map((event) => event.to_status)).toEqual(['pending', 'completed', 'reversed']);
      await dropDeliveryJobs(stack);
    }, 60_000);
  });
});
