import { PurchaseSweeperService } from '#purchase';
import { bearer, eventually, PRODUCTS, type PurchaseStack, usePurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase, readTransaction, settle, usedAllowance } from './purchase-helpers.js';

/**
 * What survives a lost queue, a crash mid-submission and the end of the reversal watch. The
 * worker starts only after the damage is done, as after an outage.
 */
describe('purchase recovery from PostgreSQL, and late reversals', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  usePurchaseStack((suite) => ({ stack, vendor } = suite), { worker: false, sandbox: { reversalDelayMs: 2_500 } });

  it('rebuilds lost submission work, and never creates after an attempt that may have reached the provider', async () => {
    const lostJob = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821235600') });
    const crashed = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821235700') });
    const allowanceBefore = await usedAllowance(stack, vendor.vendor.id);
    // Redis lost both relayed jobs; the second had been claimed for submission when its worker died.
    await stack.db.query(`UPDATE outbox_messages SET dispatched_at = now() WHERE payload->>'transactionId' = ANY($1::text[])`, [[lostJob.transaction.id, crashed.transaction.id]]);
    await stack.db.query(
      `UPDATE purchase_transactions SET submission_attempted_at = now() - interval '5 seconds', next_check_at = now() - interval '5 seconds' WHERE id = $1`,
      [crashed.transaction.id],
    );

    // The verification window counts from admission; on a loaded machine the worker's start alone
    // can take most of the suite's 5 s window, and the two "not found" answers must fall inside it.
    await stack.startWorker({ PURCHASE_VERIFICATION_WINDOW_MS: '60000' });
    const [recovered, unresolved] = await Promise.all([
      settle(stack, vendor, lostJob.transaction.id, ['completed', 'failed']),
      settle(stack, vendor, crashed.transaction.id, ['failed', 'completed']),
    ]);
    expect(recovered.status).toBe('completed');
    expect(await stack.sandbox.creates(lostJob.transaction.id)).toBe(1);
    // The provider never heard of it, and since an attempt might have reached it, we never try again.
    expect(unresolved).toMatchObject({ status: 'failed', error_code: 'PROVIDER_NOT_CREATED' });
    expect(await stack.sandbox.creates(crashed.transaction.id)).toBe(0);
    expect(await usedAllowance(stack, vendor.vendor.id)).toBe(allowanceBefore - crashed.quote.charge_minor);
  }, 30_000);

  it('drops velocity counters older than the longest window (seven days) and keeps the rest', async () => {
    const counters = await stack.vendor();
    const nowSecond = Math.floor(Date.now() / 1000);
    const seconds = [nowSecond - 8 * 86_400, nowSecond - 7 * 86_400 - 3_600, nowSecond - 6 * 86_400, nowSecond - 10];
    for (const second of seconds) {
      await stack.db.query(`INSERT INTO purchase_velocity_buckets (vendor_id, second, admissions) VALUES ($1, $2, 1)`, [counters.vendor.id, second]);
    }
    const worker = stack.worker ?? (await stack.startWorker());
    await worker.get(PurchaseSweeperService).sweep();
    const kept = await stack.db.query(`SELECT second::bigint AS second FROM purchase_velocity_buckets WHERE vendor_id = $1 ORDER BY second`, [counters.vendor.id]);
    expect(kept.map((row: { second: string }) => Number(row.second))).toEqual(seconds.slice(2));
  });

  it('checks a callback that arrives after the reversal watch ended, and records the late reversal', async () => {
    // The worker watches 3 s; this sandbox reverses 2.5 s after completion, so
    // shorten its watch in the database to make the reversal arrive after the watch.
    const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821235804') });
    const id = bought.transaction.id;
    await settle(stack, vendor, id, ['completed']);
    await stack.db.query(`UPDATE purchase_transactions SET reversal_watch_until = now() WHERE id = $1`, [id]);
    await eventually(
      () => stack.db.query(`SELECT status, next_check_at FROM purchase_transactions WHERE id = $1`, [id]),
      (rows: Array<{ next_check_at: Date | null }>) => rows[0].next_check_at === null,
    );
    expect((await readTransaction(stack, vendor, id)).status).toBe('completed');

    const reversed = await settle(stack, vendor, id, ['reversed']);
    expect(reversed.reversed_at).not.toBeNull();
    const markers = await stack.db.query(`SELECT provider_status_hint, processed_at FROM purchase_callback_markers WHERE transaction_id = $1 ORDER BY id`, [id]);
    expect(markers.map((marker: { provider_status_hint: string }) => marker.provider_status_hint)).toContain('REVERSED');
    expect(markers.every((marker: { processed_at: Date | null }) => marker.processed_at !== null)).toBe(true);
    expect(await stack.sandbox.creates(id)).toBe(1);
    await stack.gateway.http().get(`/api/v1/transactions/${id}/fulfilment`).set(bearer(vendor.token)).expect(409);
  }, 30_000);
});
