import { addRowViolations, addViolation, type InvariantReport } from './invariant-report.js';
import { countExamined, inScope, type InvariantQuery } from './invariant-query.js';

// The payout side's money invariants: the ledger against the balances, each payout's entries
// against its status, batch totals, and the holds of open payouts (issue 11, payout part; the
// age bound of holds is payout-hold-invariants.ts).

export async function checkLedger(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  const rows = await query(
    `SELECT a.vendor_id, a.available_cents::text AS available, a.reserved_cents::text AS reserved,
            COALESCE(e.available, 0)::text AS entries_available, COALESCE(e.reserved, 0)::text AS entries_reserved,
            COALESCE(p.open_cents, 0)::text AS open_payouts, COALESCE(c.debits, 0)::text AS correction_debits
       FROM payout_accounts a
       LEFT JOIN (SELECT vendor_id, SUM(amount_cents) AS debits FROM ledger_entries WHERE kind IN ('resettle', 'adjust_debit') GROUP BY vendor_id) c
              ON c.vendor_id = a.vendor_id
       LEFT JOIN (SELECT vendor_id, SUM(available_delta_cents) AS available, SUM(reserved_delta_cents) AS reserved
                    FROM ledger_entries GROUP BY vendor_id) e ON e.vendor_id = a.vendor_id
       LEFT JOIN (SELECT vendor_id, SUM(amount_cents + fee_cents) AS open_cents
                    FROM payouts WHERE status IN ('pending', 'needs_review') GROUP BY vendor_id) p ON p.vendor_id = a.vendor_id
      WHERE ${inScope('a.vendor_id')}`,
    [vendors],
  );
  report.examined.ledgerSums = rows.length;
  report.examined.nonNegativeBalances = rows.length;
  report.examined.reservedHoldsOpenPayouts = rows.length;
  for (const row of rows) {
    const account = String(row.vendor_id);
    const [available, reserved] = [BigInt(String(row.available)), BigInt(String(row.reserved))];
    const [entriesAvailable, entriesReserved] = [BigInt(String(row.entries_available)), BigInt(String(row.entries_reserved))];
    const openPayouts = BigInt(String(row.open_payouts));
    if (available !== entriesAvailable || reserved !== entriesReserved) {
      addViolation(report, 'ledgerSums', account, {
        available_cents: available.toString(),
        entries_available_cents: entriesAvailable.toString(),
        reserved_cents: reserved.toString(),
        entries_reserved_cents: entriesReserved.toString(),
      });
    }
    // A debt is allowed only as far as correction debits made it: without them the balance would not be negative.
    const correctionDebits = BigInt(String(row.correction_debits));
    if (available + correctionDebits < 0n || reserved < 0n) {
      addViolation(report, 'nonNegativeBalances', account, { available_cents: available.toString(), reserved_cents: reserved.toString(), correction_debits_cents: correctionDebits.toString() });
    }
    if (reserved !== openPayouts) addViolation(report, 'reservedHoldsOpenPayouts', account, { reserved_cents: reserved.toString(), open_payouts_cents: openPayouts.toString() });
  }
  // The allowance counter is a balance too.
  const negativeAllowances = await query(
    `SELECT vendor_id, to_char(day, 'YYYY-MM-DD') AS day, used_cents::text AS used FROM purchase_daily_allowances
      WHERE used_cents < 0 AND ${inScope('vendor_id')}`,
    [vendors],
  );
  for (const row of negativeAllowances) addViolation(report, 'nonNegativeBalances', `${row.vendor_id}/${row.day}`, { used_cents: row.used });
}

/**
 * Entries each status implies, by kind: [reserve, settle, release, reverse, resettle]. A payout
 * paid after we released it (`paid_after_release`) holds a release and a resettle instead of a settle.
 */
const EXPECTED_ENTRIES: Record<string, [number, number, number, number, number]> = {
  pending: [1, 0, 0, 0, 0],
  needs_review: [1, 0, 0, 0, 0],
  paid: [1, 1, 0, 0, 0],
  reversed: [1, 1, 0, 1, 0],
  failed: [1, 0, 1, 0, 0],
  cancelled: [1, 0, 1, 0, 0],
};

export async function checkPayoutEntries(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  report.examined.payoutEntriesMatchStatus = await countExamined(query, vendors, `FROM payouts WHERE ${inScope('vendor_id')}`);
  // Only the payouts whose entries differ from what their status implies come back.
  const rows = await query(
    `WITH counts AS (
       SELECT p.id, p.status, p.amount_cents + p.fee_cents AS hold,
              count(*) FILTER (WHERE e.kind = 'reserve')::int AS reserve,
              count(*) FILTER (WHERE e.kind = 'settle')::int AS settle,
              count(*) FILTER (WHERE e.kind = 'release')::int AS release,
              count(*) FILTER (WHERE e.kind = 'reverse')::int AS reverse,
              count(*) FILTER (WHERE e.kind = 'resettle')::int AS resettle,
              count(*) FILTER (WHERE e.id IS NOT NULL AND e.kind NOT IN ('adjust_debit', 'adjust_credit') AND e.amount_cents <> p.amount_cents + p.fee_cents)::int AS wrong_amounts
         FROM payouts p LEFT JOIN ledger_entries e ON e.payout_id = p.id
        WHERE ${inScope('p.vendor_id')}
        GROUP BY p.id)
     SELECT id, status, reserve, settle, release, reverse, resettle, wrong_amounts FROM counts
      WHERE wrong_amounts > 0
         OR ((reserve, settle, release, reverse, resettle) IS DISTINCT FROM (
              1,
              CASE WHEN status IN ('paid', 'reversed') THEN 1 ELSE 0 END,
              CASE WHEN status IN ('failed', 'cancelled') THEN 1 ELSE 0 END,
              CASE WHEN status = 'reversed' THEN 1 ELSE 0 END,
              0)
         AND (reserve, settle, release, reverse, resettle) IS DISTINCT FROM (
              1, 0, 1, CASE WHEN status = 'reversed' THEN 1 ELSE 0 END, 1)
         OR status NOT IN ('paid', 'reversed') AND resettle > 0)`,
    [vendors],
  );
  for (const row of rows) {
    const status = String(row.status);
    addViolation(report, 'payoutEntriesMatchStatus', String(row.id), {
      status,
      entries: { reserve: row.reserve, settle: row.settle, release: row.release, reverse: row.reverse, resettle: row.resettle },
      expected: EXPECTED_ENTRIES[status] ?? null,
      entries_with_wrong_amount: row.wrong_amounts,
    });
  }
}

export async function checkBatchTotals(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  const rows = await query(
    `SELECT b.id, b.item_count, b.total_amount_cents::text AS total_amount, b.total_fee_cents::text AS total_fee,
            count(p.id)::int AS items, COALESCE(sum(p.amount_cents), 0)::text AS items_amount, COALESCE(sum(p.fee_cents), 0)::text AS items_fee
       FROM payout_batches b LEFT JOIN payouts p ON p.batch_id = b.id
      WHERE ${inScope('b.vendor_id')}
      GROUP BY b.id`,
    [vendors],
  );
  report.examined.batchTotals = rows.length;
  for (const row of rows) {
    if (Number(row.item_count) !== Number(row.items) || row.total_amount !== row.items_amount || row.total_fee !== row.items_fee) {
      addViolation(report, 'batchTotals', String(row.id), {
        item_count: row.item_count,
        items: row.items,
        total_amount_cents: row.total_amount,
        items_amount_cents: row.items_amount,
        total_fee_cents: row.total_fee,
        items_fee_cents: row.items_fee,
      });
    }
  }
}

/**
 * Every hold must belong to a payout something will still resolve. A pending payout that was
 * handed to a provider (`submission_started_at` set) is resolved only by its status-poll chain,
 * so one with no poll scheduled would keep its funds reserved for ever: that is the violation.
 * Queued batch items (never submitted) are picked up by the sweeper from `created_at`, and
 * needs_review payouts are open review items (also polled on the slow schedule); both are
 * justified. Holds of closed payouts are caught by reservedHoldsOpenPayouts.
 */
export async function checkPayoutHoldsJustified(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  report.examined.payoutHoldsJustified = await countExamined(query, vendors, `FROM payouts WHERE status IN ('pending', 'needs_review') AND ${inScope('vendor_id')}`);
  const rows = await query(
    `SELECT id, status, status_reason, submission_started_at, (amount_cents + fee_cents)::text AS hold_cents FROM payouts
      WHERE status = 'pending' AND submission_started_at IS NOT NULL AND next_poll_at IS NULL AND ${inScope('vendor_id')}`,
    [vendors],
  );
  addRowViolations(report, 'payoutHoldsJustified', rows, { problem: 'submitted, still pending, and no status poll scheduled' });
}
