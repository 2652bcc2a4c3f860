import { addViolation, type InvariantReport } from './invariant-report.js';
import { countExamined, inScope, type InvariantQuery } from './invariant-query.js';

// The purchase side's money invariants: the daily allowance, quotes, idempotency records and
// the velocity counters against the transactions they account for.

/**
 * The daily allowance rule (docs/PURCHASE.md): the allowance is consumed at admission and given back only when the provider
 * verifiably took no money (`failed`, marked by `allowance_returned_at`), never on reversal.
 */
export async function checkDailyAllowance(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  const rows = await query(
    `WITH admitted AS (
       SELECT vendor_id, admission_day AS day, SUM(charge_cents) FILTER (WHERE allowance_returned_at IS NULL) AS charged, count(*) AS transactions
         FROM purchase_transactions WHERE ${inScope('vendor_id')} GROUP BY vendor_id, admission_day)
     SELECT COALESCE(a.vendor_id, t.vendor_id) AS vendor_id, to_char(COALESCE(a.day, t.day), 'YYYY-MM-DD') AS day,
            a.used_cents::text AS used, COALESCE(t.charged, 0)::text AS charged, COALESCE(t.transactions, 0)::int AS transactions
       FROM (SELECT * FROM purchase_daily_allowances WHERE ${inScope('vendor_id')}) a
       FULL JOIN admitted t ON t.vendor_id = a.vendor_id AND t.day = a.day`,
    [vendors],
  );
  report.examined.dailyAllowance = rows.length;
  for (const row of rows) {
    const used = row.used === null ? null : BigInt(String(row.used));
    const charged = BigInt(String(row.charged));
    if (used === null || used !== charged) {
      addViolation(report, 'dailyAllowance', `${row.vendor_id}/${row.day}`, {
        used_cents: used === null ? null : used.toString(),
        admitted_not_failed_cents: charged.toString(),
        transactions: row.transactions,
      });
    }
  }
  report.examined.allowanceReturnedOnlyOnFailure = await countExamined(query, vendors, `FROM purchase_transactions WHERE ${inScope('vendor_id')}`);
  const mismatched = await query(
    `SELECT id, status, allowance_returned_at FROM purchase_transactions
      WHERE ${inScope('vendor_id')} AND ((status = 'failed') <> (allowance_returned_at IS NOT NULL))`,
    [vendors],
  );
  for (const row of mismatched) {
    addViolation(report, 'allowanceReturnedOnlyOnFailure', String(row.id), { status: row.status, allowance_returned_at: row.allowance_returned_at });
  }
}

export async function checkQuotes(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  const rows = await query(
    `SELECT q.id, q.vendor_id AS quote_vendor, q.charge_cents::text AS quote_charge, q.used_at,
            count(t.id)::int AS transactions,
            count(t.id) FILTER (WHERE t.vendor_id <> q.vendor_id OR t.charge_cents <> q.charge_cents)::int AS mismatched
       FROM purchase_quotes q JOIN purchase_transactions t ON t.quote_id = q.id
      WHERE ${inScope('q.vendor_id')}
      GROUP BY q.id`,
    [vendors],
  );
  report.examined.quoteFundsOneTransaction = rows.length;
  for (const row of rows) {
    if (Number(row.transactions) !== 1 || Number(row.mismatched) > 0 || row.used_at === null) {
      addViolation(report, 'quoteFundsOneTransaction', String(row.id), {
        transactions: row.transactions,
        transactions_with_other_vendor_or_charge: row.mismatched,
        used_at: row.used_at,
      });
    }
  }
}

export async function checkIdempotencyRecords(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  report.examined.idempotencyRecordsMatch = await countExamined(query, vendors, `FROM purchase_idempotency_keys WHERE ${inScope('vendor_id')}`);
  const rows = await query(
    `SELECT k.vendor_id, k.idempotency_key, k.transaction_id, t.id AS found
       FROM purchase_idempotency_keys k
       LEFT JOIN purchase_transactions t ON t.id = k.transaction_id AND t.vendor_id = k.vendor_id AND t.quote_id = k.quote_id AND t.reference = k.reference
      WHERE ${inScope('k.vendor_id')} AND t.id IS NULL`,
    [vendors],
  );
  for (const row of rows) {
    // The key itself is the vendor's; the transaction id is enough to find it.
    addViolation(report, 'idempotencyRecordsMatch', String(row.transaction_id), { vendor_id: row.vendor_id });
  }
}

/** Velocity limits are checked against these counters (purchase_admit, migration 1763781500000). */
export async function checkVelocityCounters(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  const rows = await query(
    `WITH cutoff AS (SELECT floor(extract(epoch FROM now() - interval '7 days'))::bigint + 1 AS second),
     admitted AS (
       SELECT vendor_id, floor(extract(epoch FROM created_at))::bigint AS second, count(*)::int AS admissions
         FROM purchase_transactions WHERE ${inScope('vendor_id')} AND created_at >= to_timestamp((SELECT second FROM cutoff)) GROUP BY 1, 2),
     counted AS (
       SELECT vendor_id, second, admissions FROM purchase_velocity_buckets
        WHERE ${inScope('vendor_id')} AND second >= (SELECT second FROM cutoff))
     SELECT COALESCE(a.vendor_id, c.vendor_id) AS vendor_id, COALESCE(a.second, c.second)::text AS second,
            a.admissions AS admitted, c.admissions AS counted
       FROM admitted a FULL JOIN counted c ON c.vendor_id = a.vendor_id AND c.second = a.second`,
    [vendors],
  );
  report.examined.velocityCounters = rows.length;
  for (const row of rows) {
    if (row.admitted !== row.counted) {
      addViolation(report, 'velocityCounters', `${row.vendor_id}/${row.second}`, { admitted: row.admitted, counted: row.counted });
    }
  }
}
