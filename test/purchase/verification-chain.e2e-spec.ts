import { jest } from '@jest/globals';
import { MetricsService } from '#observability';
// The worker's own repository: the test counts the reads a superseded poll would have made.
import { TransactionRepository } from '../../libs/purchase/src/persistence/transaction.repository.js';
import { QueueProducer } from '#queues';
import { eventually, PRODUCTS, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase, settle } from './purchase-helpers.js';

/**
 * The cost side of verification: a purchase the provider's callback settles is looked up once
 * for that callback, and the poll scheduled at submission, which would only repeat the lookup,
 * is superseded. Clocks: the sandbox completes (and calls back) after 300 ms, the first poll
 * waits 5 s (room for the callback on a loaded machine: it must be handled before the poll is
 * due), the reversal watch looks again only after a minute.
 */
describe('purchase verification chain', () => {
  const FIRST_POLL_MS = 5_000;
  let stack: PurchaseStack;
  let vendor: TestVendor;

  beforeAll(async () => {
    stack = await startPurchaseStack({
      // The stack's default cap on poll delays (500 ms) would otherwise cut the first poll short.
      worker: {
        PURCHASE_VERIFY_INITIAL_DELAY_MS: String(FIRST_POLL_MS),
        PURCHASE_VERIFY_MAX_DELAY_MS: String(FIRST_POLL_MS),
        PURCHASE_REVERSAL_WATCH_MS: '600000',
        PURCHASE_REVERSAL_WATCH_INTERVAL_MS: '60000',
      },
    });
    vendor = await stack.vendor();
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** purchase_provider_lookups_total of the worker, by result. */
  const lookups = async () => {
    const metric = await stack.worker!.get(MetricsService).purchaseLookups.get();
    return Object.fromEntries(metric.values.map((value) => [value.labels.result, value.value]));
  };

  const chainOf = async (id: string) => {
    const [row] = await stack.db.query(
      `SELECT check_seq, last_checked_at, next_check_at, extract(epoch FROM next_check_at - last_checked_at)::float AS next_in_s
         FROM purchase_transactions WHERE id = $1`,
      [id],
    );
    return row as { check_seq: number; last_checked_at: Date; next_check_at: Date | null; next_in_s: number };
  };

  it('a callback that completes the purchase takes the polling chain over; the superseded first poll is withdrawn and makes no lookup', async () => {
    // The worker's reads of a transaction's state (what a chain link starts from; a callback's job reads with its markers).
    const stateReads = jest.spyOn(stack.worker!.get(TransactionRepository), 'record');
    const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') });
    const id = bought.transaction.id;
    await settle(stack, vendor, id, ['completed'], 20_000);
    // Completed by the callback's lookup, not the first poll: that is proven below without a
    // stopwatch (a poll that had completed it would leave the callback's lookup a second "found").
    const [callbackMarker] = await stack.db.query(`SELECT processed_at FROM purchase_callback_markers WHERE transaction_id = $1`, [id]);
    expect(callbackMarker?.processed_at).not.toBeNull();

    const atCompletion = await chainOf(id);
    // Submission scheduled check 1; the callback's verification scheduled check 2, the reversal watch, a minute out.
    expect(atCompletion.check_seq).toBe(2);
    expect(atCompletion.next_in_s).toBeGreaterThan(55);

    // Check 1 never ran: the takeover took its delayed job out of Redis (state `unknown`, not a
    // finished job), so it neither looked up nor rescheduled. Waiting on the job's state rather
    // than a fixed time keeps this right on a slow machine: a job still there is `delayed`, one that ran `completed`.
    const verifications = stack.worker!.get(QueueProducer).queue('purchase-verification');
    await eventually(
      () => verifications.getJobState(`verify.${id}.1`),
      (state) => state === 'completed' || state === 'failed' || state === 'unknown',
      FIRST_POLL_MS + 30_000,
      200,
    );
    expect(await verifications.getJobState(`verify.${id}.1`)).toBe('unknown');
    // Nothing read the row for check 1.
    expect(stateReads.mock.calls.filter(([transactionId]) => transactionId === id)).toHaveLength(0);
    stateReads.mockRestore();
    const later = await chainOf(id);
    expect(later.check_seq).toBe(2);
    expect(new Date(later.last_checked_at).getTime()).toBe(new Date(atCompletion.last_checked_at).getTime());
    expect(new Date(later.next_check_at!).getTime()).toBe(new Date(atCompletion.next_check_at!).getTime());

    const events = await stack.db.query(`SELECT from_status, to_status FROM purchase_transaction_events WHERE transaction_id = $1 ORDER BY id`, [id]);
    expect(events.map((event: { to_status: string }) => event.to_status)).toEqual(['pending', 'completed']);
    expect(await stack.sandbox.creates(id)).toBe(1);
    // One lookup found it: the callback's. (The "not found" before the create is counted too, but so
    // are this worker's sweeps of earlier suites' purchases in the run's shared database, which
    // this sandbox does not hold; only this purchase can be found here.)
    expect((await lookups()).found).toBe(1);
  });
});
