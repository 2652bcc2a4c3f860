import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { GatewayEnv } from '#config';
import { jobSpec } from '#queues';
import { lateCreationDedupeKey, PurchaseOutcomesService, PurchaseReviewService } from '#purchase';
import { FaultProxy } from '../support/reliability/fault-proxy.js';
import { bearer, CALLBACK_TOKEN, eventually, PRODUCTS, SANDBOX_API_KEY, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase, readTransaction, settle, usedAllowance } from './purchase-helpers.js';

/**
 * What the provider says after the first answer: a reversal reported while the provider cannot be
 * reached, a PIN that arrives on a later lookup, a transaction the provider created after we
 * proved it absent, and a callback whose verification job failed for good. The worker reaches the
 * provider through a TCP proxy the tests can close; the gateway (and the sandbox's callbacks)
 * are not affected by it.
 */
describe('purchase answers that come after the first one', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  let proxy: FaultProxy;
  let workerOverrides: Record<string, string>;

  beforeAll(async () => {
    // Reversals come 4 s after completion: time enough to end the reversal watch and cut the provider off first.
    stack = await startPurchaseStack({ worker: false, sandbox: { reversalDelayMs: 4_000 } });
    proxy = await FaultProxy.forUrl(stack.sandbox.url);
    workerOverrides = { PURCHASE_PROVIDER_BASE_URL: proxy.proxied(stack.sandbox.url) };
    await stack.startWorker(workerOverrides);
    vendor = await stack.vendor();
  });

  // Each test starts with the provider reachable, whatever an earlier one left behind.
  beforeEach(() => proxy.setMode('pass'));

  afterAll(async () => {
    await stack?.close();
    await proxy?.close();
  });

  const markersOf = (id: string) =>
    stack.db.query(`SELECT id, provider_status_hint, received_at, processed_at FROM purchase_callback_markers WHERE transaction_id = $1 ORDER BY id`, [id]) as Promise<
      Array<{ id: string; provider_status_hint: string; received_at: Date; processed_at: Date | null }>
    >;
  const lastCheckedAt = async (id: string) => {
    const [row] = await stack.db.query(`SELECT last_checked_at FROM purchase_transactions WHERE id = $1`, [id]);
    return row.last_checked_at ? new Date(row.last_checked_at).getTime() : 0;
  };
  const providerRecord = async (id: string) => {
    const response = await fetch(`${stack.sandbox.url}/dvs/v1/transactions?external_id=${id}`, { headers: { 'x-api-key': SANDBOX_API_KEY } });
    const [record] = (await response.json()) as Array<{ id: number; status: { message: string }; pin: { code: string; serial: string } | null }>;
    return record;
  };

  it('keeps a callback whose lookup failed, and records the reversal once the provider answers again', async () => {
    const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821236655') });
    const id = bought.transaction.id;
    await settle(stack, vendor, id, ['completed']);
    // The reversal watch is over and the provider is unreachable from the worker when it reverses
    // the purchase and says so in a callback. Driven step by step (not by a sandbox timer), so a
    // slow machine cannot let a watch lookup see the reversal first.
    await stack.db.query(`UPDATE purchase_transactions SET reversal_watch_until = now(), next_check_at = NULL WHERE id = $1`, [id]);
    proxy.setMode('refuse');
    proxy.cutAll(); // kept-alive connections too: the worker's next lookup finds no way through
    const reversedAtProvider = await fetch(`${stack.sandbox.url}/__sandbox/settlement/dvs/reverse/${id}`, { method: 'POST', headers: { 'x-api-key': SANDBOX_API_KEY } });
    expect(reversedAtProvider.status).toBe(200);
    await stack.gateway.http().post(`/api/v1/provider/callback/${CALLBACK_TOKEN}`).send({ external_id: id, status: 'REVERSED' }).expect(200);

    // The callback's verification ran and its lookup failed (it still writes last_checked_at).
    const markers = await eventually(
      async () => ({ markers: await markersOf(id), checkedAt: await lastCheckedAt(id) }),
      ({ markers, checkedAt }) => markers.some((marker) => marker.provider_status_hint === 'REVERSED' && checkedAt > new Date(marker.received_at).getTime()),
      20_000,
    );
    const reversedHint = markers.markers.find((marker) => marker.provider_status_hint === 'REVERSED')!;
    const [{ processed_at: stillOpen }] = await stack.db.query(`SELECT processed_at FROM purchase_callback_markers WHERE id = $1`, [reversedHint.id]);
    expect(stillOpen).toBeNull();
    expect((await readTransaction(stack, vendor, id)).status).toBe('completed');
    const allowanceBefore = await usedAllowance(stack, vendor.vendor.id);

    proxy.setMode('pass');
    const reversed = await settle(stack, vendor, id, ['reversed'], 20_000);
    expect(reversed.reversed_at).not.toBeNull();
    // The reversal may be found first by a watch poll already queued; the marker is then consumed
    // by its own (rebuilt) verification, which the sweeper re-sends.
    await eventually(
      () => markersOf(id),
      (all) => all.every((marker) => marker.processed_at !== null),
      30_000,
    );
    const events = await stack.db.query(`SELECT from_status, to_status FROM purchase_transaction_events WHERE transaction_id = $1 ORDER BY id`, [id]);
    expect(events.map((event: { to_status: string }) => event.to_status)).toEqual(['pending', 'completed', 'reversed']);
    // A reversal never gives allowance back, and it was found by lookup, not a second create.
    expect(await usedAllowance(stack, vendor.vendor.id)).toBe(allowanceBefore);
    expect(await stack.sandbox.creates(id)).toBe(1);
  }, 60_000);

  it('stores a PIN that first appears on a later lookup of a completed purchase, once, and serves it', async () => {
    const bought = await purchase(stack, vendor, { product_id: PRODUCTS.pin, ...mobile('27821236608') });
    const id = bought.transaction.id;
    await settle(stack, vendor, id, ['completed']);
    const done = await eventually(
      () => readTransaction(stack, vendor, id),
      (transaction) => transaction.fulfilment_available,
      20_000,
    );
    expect(done.status).toBe('completed');
    const response = await stack.gateway.http().get(`/api/v1/transactions/${id}/fulfilment`).set(bearer(vendor.token)).expect(200);
    const atProvider = await providerRecord(id);
    expect(response.body.data.pin).toEqual({ code: atProvider.pin!.code, serial: atProvider.pin!.serial });

    // Exactly once: the reversal watch keeps looking up (PIN included) and the sealed copy stays the first one.
    const [first] = await stack.db.query(`SELECT sealed FROM purchase_fulfilments WHERE transaction_id = $1`, [id]);
    await eventually(
      () => stack.db.query(`SELECT next_check_at FROM purchase_transactions WHERE id = $1`, [id]),
      (rows: Array<{ next_check_at: Date | null }>) => rows[0].next_check_at === null,
      20_000,
    );
    const stored = await stack.db.query(`SELECT sealed FROM purchase_fulfilments WHERE transaction_id = $1`, [id]);
    expect(stored).toEqual([{ sealed: first.sealed }]);
    const events = await stack.db.query(`SELECT to_status FROM purchase_transaction_events WHERE transaction_id = $1 ORDER BY id`, [id]);
    expect(events.map((event: { to_status: string }) => event.to_status)).toEqual(['pending', 'completed']);
  }, 60_000);

  it('keeps a failed purchase failed when the provider creates it late, and raises one late_creation exception', async () => {
    const bought = await purchase(stack, vendor, { product_id: PRODUCTS.pin, ...mobile('27821236609') });
    const id = bought.transaction.id;
    const failed = await settle(stack, vendor, id, ['failed', 'completed'], 30_000);
    expect(failed).toMatchObject({ status: 'failed', error_code: 'PROVIDER_NOT_CREATED' });
    const allowanceAfterFailure = await usedAllowance(stack, vendor.vendor.id);
    const [before] = await stack.db.query(`SELECT updated_at, failed_at FROM purchase_transactions WHERE id = $1`, [id]);

    // The provider now carries out the create it answered with HTTP 500, completes it and calls back.
    const late = await fetch(`${stack.sandbox.url}/__sandbox/purchase/late-create`, {
      method: 'POST',
      headers: { 'x-api-key': SANDBOX_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ external_id: id }),
    });
    expect(late.status).toBe(201);
    const dedupeKey = `purchase:${id}:late_creation`;
    expect(lateCreationDedupeKey(id)).toBe(dedupeKey);
    const [exception] = await eventually(
      () =>
        stack.db.query(`SELECT domain, kind, vendor_id, purchase_transaction_id, status, details FROM reconciliation_exceptions WHERE dedupe_key = $1`, [
          dedupeKey,
        ]) as Promise<Array<{ details: Record<string, unknown> }>>,
      (rows) => rows.length > 0,
      20_000,
    );
    const atProvider = await providerRecord(id);
    expect(atProvider.status.message).toBe('COMPLETED');
    expect(exception).toMatchObject({
      domain: 'purchase',
      kind: 'late_creation',
      vendor_id: vendor.vendor.id,
      purchase_transaction_id: id,
      status: 'open',
      details: {
        source: 'lookup',
        our_status: 'failed',
        our_charge_cents: String(bought.quote.charge_minor),
        provider_transaction_id: String(atProvider.id),
        provider_status: 'COMPLETED',
        provider_wholesale_amount: expect.any(String),
        provider_destination_amount: '12.00',
      },
    });
    // Evidence only: the PIN the provider now holds is nowhere in it.
    expect(JSON.stringify(exception.details)).not.toContain(atProvider.pin!.code);

    // The purchase stays failed: no new status, allowance untouched, nothing to deliver.
    const after = await readTransaction(stack, vendor, id);
    expect(after).toMatchObject({ status: 'failed', error_code: 'PROVIDER_NOT_CREATED', fulfilment_available: false });
    const [row] = await stack.db.query(`SELECT updated_at, failed_at, provider_transaction_id FROM purchase_transactions WHERE id = $1`, [id]);
    expect(row).toEqual({ ...before, provider_transaction_id: null });
    expect(await usedAllowance(stack, vendor.vendor.id)).toBe(allowanceAfterFailure);
    expect(await stack.db.query(`SELECT 1 FROM purchase_fulfilments WHERE transaction_id = $1`, [id])).toHaveLength(0);
    await stack.gateway.http().get(`/api/v1/transactions/${id}/fulfilment`).set(bearer(vendor.token)).expect(409);
    // The reversal may be found first by a watch poll already queued; the marker is then consumed
    // by its own (rebuilt) verification, which the sweeper re-sends.
    await eventually(
      () => markersOf(id),
      (all) => all.every((marker) => marker.processed_at !== null),
      30_000,
    );
    expect(await stack.sandbox.creates(id)).toBe(1);

    // The same rule for a settlement report line that proves it again: no second exception.
    const recorder = stack.worker!.get(PurchaseOutcomesService);
    const again = await recorder.recordLateCreation(id, { source: 'settlement_report', providerTransactionId: String(atProvider.id), providerStatus: 'COMPLETED' });
    expect(again).toBe(false);
    expect(await stack.db.query(`SELECT 1 FROM reconciliation_exceptions WHERE dedupe_key = $1`, [dedupeKey])).toHaveLength(1);

    // Staff may ask for a lookup of a failed purchase too: it looks, and still changes nothing.
    const checkedBefore = await lastCheckedAt(id);
    expect(await stack.gateway.app.get(PurchaseReviewService).requestVerification(id)).toEqual({ transaction_id: id, status: 'failed', scheduled: true });
    await eventually(() => lastCheckedAt(id), (checkedAt) => checkedAt > checkedBefore, 20_000);
    expect(await readTransaction(stack, vendor, id)).toMatchObject({ status: 'failed', fulfilment_available: false });
    expect(await stack.db.query(`SELECT 1 FROM reconciliation_exceptions WHERE dedupe_key = $1`, [dedupeKey])).toHaveLength(1);
  }, 60_000);

  it('answers a callback that arrived while the worker was down, whose job of the previous release failed for good, from its marker', async () => {
    const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821236610') });
    const id = bought.transaction.id;
    await settle(stack, vendor, id, ['completed']);
    await stack.db.query(`UPDATE purchase_transactions SET reversal_watch_until = now() WHERE id = $1`, [id]);
    await eventually(
      () => stack.db.query(`SELECT next_check_at FROM purchase_transactions WHERE id = $1`, [id]),
      (rows: Array<{ next_check_at: Date | null }>) => rows[0].next_check_at === null,
      20_000,
    );
    await stack.worker!.close();
    stack.worker = undefined;

    // A callback while the worker is down: only its marker is written (no outbox row: the marker is the work).
    await stack.gateway.http().post(`/api/v1/provider/callback/${CALLBACK_TOKEN}`).send({ external_id: id, status: 'COMPLETED' }).expect(200);
    const [marker] = await stack.db.query(`SELECT id FROM purchase_callback_markers WHERE transaction_id = $1 AND processed_at IS NULL`, [id]);
    expect(await stack.db.query(`SELECT 1 FROM outbox_messages WHERE payload->>'transactionId' = $1 AND job_name = 'purchase.verify'`, [id])).toHaveLength(0);
    const { id: jobId } = jobSpec('purchase.verify', { transactionId: id, reason: 'callback', marker: String(marker.id) });

    // A verification job for it, as the previous release made one, failed for good and is kept for staff.
    const { QUEUE_PREFIX: prefix, REDIS_URL } = stack.gateway.app.get(GatewayEnv);
    const queueConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const workerConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue('purchase-verification', { connection: queueConnection, prefix });
    await queue.add('purchase.verify', { transactionId: id, reason: 'callback' }, { jobId, attempts: 1, removeOnFail: false });
    const failing = new Worker(
      'purchase-verification',
      async (job) => {
        throw new UnrecoverableError(`simulated final failure of ${job.id}`);
      },
      { connection: workerConnection, prefix },
    );
    try {
      await eventually(() => queue.getJobState(jobId), (state) => state === 'failed', 20_000);
    } finally {
      await failing.close();
      workerConnection.disconnect();
    }
    const checkedBefore = await lastCheckedAt(id);

    // The worker claims the open marker from PostgreSQL whatever became of any job.
    await stack.startWorker(workerOverrides);
    await eventually(
      () => stack.db.query(`SELECT processed_at FROM purchase_callback_markers WHERE id = $1`, [marker.id]),
      (rows: Array<{ processed_at: Date | null }>) => rows[0].processed_at !== null,
      20_000,
    );
    // A real lookup answered the marker, and the failed job is still there for staff.
    expect(await lastCheckedAt(id)).toBeGreaterThan(checkedBefore);
    expect(await queue.getJobState(jobId)).toBe('failed');
    await queue.close();
    queueConnection.disconnect();
  }, 60_000);
});
