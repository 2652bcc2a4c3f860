import { eventually, PRODUCTS, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase, settle } from './purchase-helpers.js';

/**
 * The reversal watch after completion, end to end (sandbox, gateway, worker, PostgreSQL): each
 * check waits as long as the purchase has been completed, from PURCHASE_REVERSAL_WATCH_INTERVAL_MS
 * up to PURCHASE_REVERSAL_WATCH_MAX_INTERVAL_MS, and the last one falls on the end of the watch.
 * Clocks scaled down: first check 400 ms after completion, at most 1.6 s apart, a 5 s watch, so
 * the checks fall about 0.4, 0.8, 1.6, 3.2, 4.8 and 5 s after completion (six, where a fixed
 * 400 ms interval would make twelve).
 */
describe('purchase reversal watch', () => {
  const WATCH_MS = 5_000;
  const INTERVAL_MS = 400;
  const MAX_INTERVAL_MS = 1_600;
  let stack: PurchaseStack;
  let vendor: TestVendor;

  beforeAll(async () => {
    stack = await startPurchaseStack({
      worker: {
        PURCHASE_REVERSAL_WATCH_MS: String(WATCH_MS),
        PURCHASE_REVERSAL_WATCH_INTERVAL_MS: String(INTERVAL_MS),
        PURCHASE_REVERSAL_WATCH_MAX_INTERVAL_MS: String(MAX_INTERVAL_MS),
      },
    });
    vendor = await stack.vendor();
  });

  afterAll(async () => {
    await stack?.close();
  });

  interface ChainLink {
    check_seq: number;
    /** When the link's check ran, ms after the watch started (completion, on the database's clock). */
    checked_at_ms: number;
    /** The delay it planned for the next check (null: the watch is over). */
    next_in_ms: number | null;
  }

  const linkOf = async (id: string): Promise<ChainLink> => {
    const [row] = await stack.db.query(
      `SELECT check_seq,
              extract(epoch FROM last_checked_at - (reversal_watch_until - make_interval(secs => $2::double precision / 1000))) * 1000 AS checked_at_ms,
              extract(epoch FROM next_check_at - last_checked_at) * 1000 AS next_in_ms
         FROM purchase_transactions WHERE id = $1`,
      [id, WATCH_MS],
    );
    // NaN before completion (no watch yet): such a link is not the watch's.
    return { check_seq: row.check_seq, checked_at_ms: row.checked_at_ms === null ? NaN : Number(row.checked_at_ms), next_in_ms: row.next_in_ms === null ? null : Number(row.next_in_ms) };
  };

  it('spaces its checks by how long the purchase has been completed, up to the maximum, and ends at the end of the watch', async () => {
    const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234567') });
    const id = bought.transaction.id;
    await settle(stack, vendor, id, ['completed'], 20_000);

    // Every link of the chain, as the worker writes them, until the watch is over (next_check_at cleared).
    const links = new Map<number, ChainLink>();
    await eventually(
      async () => {
        const link = await linkOf(id);
        links.set(link.check_seq, link);
        return link;
      },
      (link) => link.next_in_ms === null,
      WATCH_MS + 20_000,
      50,
    );
    const chain = [...links.values()].sort((a, b) => a.check_seq - b.check_seq);
    // From the completing lookup on (sampled after `completed`, so every link seen has its watch).
    // A claim leases the due check (check_seq + 1, next_check_at moved by the lease) without a
    // lookup, so a sample taken between claim and recording shows the same check: keep each
    // check's first sample, the link its recording planned.
    const byCheck = new Map<number, ChainLink>();
    for (const link of chain) if (Number.isFinite(link.checked_at_ms) && !byCheck.has(link.checked_at_ms)) byCheck.set(link.checked_at_ms, link);
    const watch = [...byCheck.values()];
    // Each link planned the next as long after it as the purchase had then been completed, clamped
    // to the interval and the maximum, never past the end of the watch: the completing lookup one
    // interval out (250 ms: the worker plans on its clock, a moment after the database stamped the check, and a loaded machine stretches that moment; a fixed interval would be off by 500 ms and more).
    for (const link of watch) {
      if (link.next_in_ms === null) continue;
      const expected = Math.min(Math.max(link.checked_at_ms, INTERVAL_MS), MAX_INTERVAL_MS, WATCH_MS - link.checked_at_ms);
      expect(Math.abs(link.next_in_ms - expected)).toBeLessThan(250);
    }
    // Each check comes a little after it was due (the claim round's pace, the lookup), which moves
    // the rest later: about 0.4, 0.8, 1.6, 3.2, 4.8 and 5 s after completion, five or six watch
    // lookups after the completing one, the last at the end of the watch (a fixed 400 ms: twelve).
    const lookupsAfterCompletion = watch.length - 1;
    expect(lookupsAfterCompletion).toBeGreaterThanOrEqual(4);
    expect(lookupsAfterCompletion).toBeLessThanOrEqual(6);
    expect(watch[watch.length - 1].checked_at_ms).toBeGreaterThanOrEqual(WATCH_MS - 50);
    expect(watch[watch.length - 1].next_in_ms).toBeNull();
    const [row] = await stack.db.query(`SELECT status FROM purchase_transactions WHERE id = $1`, [id]);
    expect(row.status).toBe('completed');
  });
});
