import { addRowViolations, addViolation, type InvariantReport } from './invariant-report.js';
import { countExamined, inScope, type InvariantQuery } from './invariant-query.js';

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

// ---- Settlement reports (docs/RECONCILIATION.md) ----

/**
 * Every line of an ingested settlement report ends `matched` or `applied` (naming the record it
 * matched) or `exception` (naming an existing exception, open or resolved). A line still
 * unmatched counts once an ingestion finished after it arrived, or after a day (an ingestion
 * that died mid-way and was never re-run); before that it may simply be in progress. Vendor
 * scope: lines of the vendors' records; lines that match no record only in an unscoped check.
 */
export async function checkSettlementLines(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  const scoped = `FROM settlement_lines l
       JOIN settlement_reports r ON r.id = l.report_id
       LEFT JOIN purchase_transactions t ON t.id = l.purchase_transaction_id
       LEFT JOIN payouts p ON p.id = l.payout_id
       LEFT JOIN reconciliation_exceptions e ON e.id = l.exception_id
      WHERE ($1::uuid[] IS NULL OR t.vendor_id = ANY($1::uuid[]) OR p.vendor_id = ANY($1::uuid[]))`;
  report.examined.settlementLines = await countExamined(query, vendors, scoped);
  const rows = await query(
    `SELECT l.id::text AS id, r.provider, to_char(r.report_date, 'YYYY-MM-DD') AS report_date, l.match_result, l.exception_id
       ${scoped}
        AND CASE
              WHEN l.match_result IS NULL THEN r.reconciled_at >= l.received_at OR l.received_at < now() - interval '1 day'
              WHEN l.match_result = 'exception' THEN e.id IS NULL
              ELSE t.id IS NULL AND p.id IS NULL
            END`,
    [vendors],
  );
  for (const row of rows) {
    addViolation(report, 'settlementLines', `settlement_line:${String(row.id)}`, { provider: row.provider, report_date: row.report_date, match_result: row.match_result, exception_id: row.exception_id });
  }
}

/**
 * A line that disagrees raises its own exception (issue 26): a line marked `exception` that names
 * one resolved before the line was even received was swallowed by it, and nobody sees it.
 */
export async function checkLinesNotHidden(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  const scoped = `FROM settlement_lines l
       JOIN settlement_reports r ON r.id = l.report_id
       JOIN reconciliation_exceptions e ON e.id = l.exception_id
      WHERE ($1::uuid[] IS NULL OR e.vendor_id = ANY($1::uuid[]))`;
  report.examined.settlementLineNotHidden = await countExamined(query, vendors, scoped);
  const rows = await query(
    `SELECT l.id::text AS id, r.provider, to_char(r.report_date, 'YYYY-MM-DD') AS report_date, e.id AS exception_id, e.kind, e.resolved_at, l.received_at
       ${scoped} AND e.resolved_at IS NOT NULL AND e.resolved_at < l.received_at`,
    [vendors],
  );
  for (const row of rows) {
    addViolation(report, 'settlementLineNotHidden', `settlement_line:${String(row.id)}`, {
      provider: row.provider,
      report_date: row.report_date,
      exception_id: row.exception_id,
      kind: row.kind,
      exception_resolved_at: row.resolved_at,
      line_received_at: row.received_at,
    });
  }
}

/**
 * The books follow the provider's proof (issue 26): a payout we released as failed that a line
 * (for its amount and provider reference) names as paid or reversed must have been re-settled
 * (it is then `paid` or `reversed`), never left failed with the vendor holding money that has left.
 */
export async function checkReleasedPayoutsNotProvedPaid(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  report.examined.releasedPayoutNotProvedPaid = await countExamined(query, vendors, `FROM payouts WHERE status = 'failed' AND ${inScope('vendor_id')}`);
  const rows = await query(
    `SELECT p.id, p.status_reason, (p.amount_cents + p.fee_cents)::text AS released_cents, l.id::text AS settlement_line_id, l.status AS line_status
       FROM payouts p JOIN settlement_lines l ON l.payout_id = p.id
      WHERE p.status = 'failed' AND ${inScope('p.vendor_id')}
        -- A line that misstates the amount or the provider reference proves nothing about ours (it is an exception of its own).
        AND l.amount_cents = p.amount_cents AND (p.provider_reference IS NULL OR p.provider_reference = l.provider_reference)`,
    [vendors],
  );
  addRowViolations(report, 'releasedPayoutNotProvedPaid', rows);
}
