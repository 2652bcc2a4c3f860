import type { InvariantReport } from './invariant-checker.js';
import type { InvariantQuery } from './invariant-query.js';

/**
 * A provider settles (or reverses) one of our records once. A second line of the same status for
 * the same record is a `duplicate_line` exception (issue 26): a provider that settles or charges
 * twice is flagged, never matched as if it were the first. Lines a re-issued report withdrew no
 * longer count. Vendor scope: lines of the vendors' payouts and purchases.
 */
export async function checkOneSettlingLinePerRecord(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  const rows = await query(
    `WITH accepted AS (
       SELECT l.id, l.status, l.payout_id, l.purchase_transaction_id, COALESCE(p.vendor_id, t.vendor_id) AS vendor_id
         FROM settlement_lines l
         LEFT JOIN payouts p ON p.id = l.payout_id
         LEFT JOIN purchase_transactions t ON t.id = l.purchase_transaction_id
        WHERE l.match_result IN ('matched', 'applied') AND l.withdrawn_at IS NULL
          AND (l.payout_id IS NOT NULL OR l.purchase_transaction_id IS NOT NULL))
     SELECT COALESCE(payout_id::text, purchase_transaction_id::text) AS record_id,
            CASE WHEN payout_id IS NOT NULL THEN 'payout' ELSE 'purchase' END AS domain,
            status, count(*)::int AS lines, array_agg(id::text ORDER BY id) AS line_ids
       FROM accepted
      WHERE ($1::uuid[] IS NULL OR vendor_id = ANY($1::uuid[]))
      GROUP BY payout_id, purchase_transaction_id, status`,
    [vendors],
  );
  report.examined.oneSettlingLinePerRecord = rows.length;
  for (const row of rows) {
    if (Number(row.lines) < 2) continue;
    report.violations.push({
      invariant: 'oneSettlingLinePerRecord',
      subject: String(row.record_id),
      details: { domain: row.domain, line_status: row.status, accepted_lines: row.line_ids, problem: 'more than one matched or applied line of this status' },
    });
  }
}
