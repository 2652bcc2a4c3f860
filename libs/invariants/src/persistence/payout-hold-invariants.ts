import type { InvariantReport } from './invariant-report.js';
import { inScope, type InvariantQuery } from './invariant-query.js';

/**
 * needs_review is bounded (issue 26): a payout may hold the vendor's amount + fee (pending or
 * needs_review) for at most PAYOUT_HOLD_MAX_AGE_MS, counted from its creation, unless a staff item
 * owns it: an open reconciliation exception naming the payout (the worker's `hold_overdue`, or any
 * other), or a pending staff proposal about it (a `payout.resolve` waiting for its approver).
 */
export async function checkPayoutHoldAges(query: InvariantQuery, vendors: string[] | null, report: InvariantReport, maxAgeMs: number): Promise<void> {
  const rows = await query(
    `SELECT p.id::text AS payout_id, p.vendor_id, p.status, p.created_at, floor(extract(epoch FROM now() - p.created_at))::int AS age_seconds,
            EXISTS (SELECT 1 FROM reconciliation_exceptions e WHERE e.payout_id = p.id AND e.status = 'open')
              OR EXISTS (SELECT 1 FROM staff_proposals s WHERE s.subject_type = 'payout' AND s.subject_id = p.id::text AND s.status = 'pending') AS owned
       FROM payouts p
      WHERE ${inScope('p.vendor_id')} AND p.status IN ('pending', 'needs_review') AND p.created_at < now() - make_interval(secs => $2::float8 / 1000)`,
    [vendors, maxAgeMs],
  );
  report.examined.payoutHoldsBounded = rows.length;
  for (const row of rows) {
    if (row.owned === true) continue;
    const { owned: _owned, ...details } = row;
    report.violations.push({ invariant: 'payoutHoldsBounded', subject: String(row.payout_id), details: { ...details, bound_ms: maxAgeMs, problem: 'hold older than PAYOUT_HOLD_MAX_AGE_MS without an open staff item' } });
  }
}
