import { loadConfig } from '#config';
import { PRODUCTS, type PurchaseStack, usePurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase, settle } from './purchase-helpers.js';

/** The worker's purchase timings exactly as shipped (GatewayEnv defaults), not the suites' fast ones. */
const defaults = loadConfig({ APP_ENV: 'test' }, {});
const DEFAULT_TIMINGS = Object.fromEntries(
  (
    [
      'PURCHASE_PROVIDER_TIMEOUT_MS',
      'PURCHASE_VERIFY_INITIAL_DELAY_MS',
      'PURCHASE_VERIFY_MAX_DELAY_MS',
      'PURCHASE_VERIFICATION_WINDOW_MS',
      'PURCHASE_NOT_FOUND_SETTLE_MS',
      'PURCHASE_NOT_FOUND_CONFIRM_DELAY_MS',
      'PURCHASE_SWEEP_INTERVAL_MS',
    ] as const
  ).map((name) => [name, String(defaults[name])]),
);

/**
 * Issue 17, part 5: with default settings a purchase the provider never created (sandbox 03)
 * reaches `failed` in under 30 s, without giving up the safety rule (two "not found" answers,
 * both after the settle period, and exactly one create sent).
 */
describe('failure latency with default worker settings', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  usePurchaseStack((suite) => ({ stack, vendor } = suite), { worker: DEFAULT_TIMINGS });

  it('sandbox 03 is failed (PROVIDER_NOT_CREATED) in under 30 s, after the settle period, with one create', async () => {
    const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234503') });
    const id = bought.transaction.id as string;
    const failed = await settle(stack, vendor, id, ['failed', 'completed'], 45_000);
    expect(failed).toMatchObject({ status: 'failed', error_code: 'PROVIDER_NOT_CREATED' });
    const [row] = await stack.db.query(
      `SELECT extract(epoch FROM failed_at - created_at) * 1000 AS to_failed_ms,
              extract(epoch FROM failed_at - submission_ended_at) * 1000 AS after_attempt_ms, not_found_streak
         FROM purchase_transactions WHERE id = $1`,
      [id],
    );
    // Measured from admission in the database, not by the test's own clock.
    expect(Number(row.to_failed_ms)).toBeLessThan(30_000);
    expect(Number(row.after_attempt_ms)).toBeGreaterThanOrEqual(Number(DEFAULT_TIMINGS.PURCHASE_NOT_FOUND_SETTLE_MS));
    expect(row.not_found_streak).toBe(2);
    expect(await stack.sandbox.creates(id)).toBe(1);
    process.stdout.write(`sandbox 03 failed after ${Math.round(Number(row.to_failed_ms))} ms (attempt ended + ${Math.round(Number(row.after_attempt_ms))} ms)\n`);
  }, 60_000);
});
