import type { InvariantReport } from './invariant-report.js';
import { inScope, type InvariantQuery } from './invariant-query.js';

const PAYOUT_PROVIDERS = ['bank_a_instant_money', 'bank_b_cardless', 'rtc_eft', 'voucher'];

/** A Johannesburg day's bounds in SQL, from the date column alone (the zone has no daylight saving). */
const dayStart = (column: string) => `(${column}::timestamp AT TIME ZONE 'Africa/Johannesburg')`;
const dayEnd = (column: string) => `((${column} + 1)::timestamp AT TIME ZONE 'Africa/Johannesburg')`;

/** The amounts of a daily balance compared with the ledger recomputed (each a column of payout_daily_balances and of the recomputation). */
const COMPARED_BALANCE_AMOUNTS = [
  'opening_available_cents', 'opening_reserved_cents', 'funded_cents', 'reserved_cents', 'settled_amount_cents', 'settled_fee_cents', 'released_cents',
  'reversed_cents', 'resettled_cents', 'adjusted_debit_cents', 'adjusted_credit_cents', 'closing_available_cents', 'closing_reserved_cents',
];
/** The same for a day's purchase totals (purchase_daily_totals against the purchase records). */
const COMPARED_TOTAL_AMOUNTS = ['charged_count', 'charged_cents', 'reversed_count', 'reversed_cents', 'net_cents'];

/**
 * Closed days (docs/RECONCILIATION.md, "Closing a day"): for every date whose payout
 * provider-days are all closed, each vendor with ledger entries before the day's end has one
 * daily balance row, and it equals the ledger recomputed now (opening, movements by kind,
 * closing); for every closed purchase provider-day, the purchase totals equal the purchase
 * records. A balance or total that was edited, one missing, one written for a day not closed, or
 * an entry or purchase that landed in a closed day afterwards is a violation.
 */
export async function checkClosedDays(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  const differences = (columns: string[]) => columns.map((column) => `x.${column} IS DISTINCT FROM b.${column}`).join(' OR ');
  const pairs = (columns: string[]) => columns.map((column) => `'${column}', json_build_array(b.${column}::text, x.${column}::text)`).join(', ');
  const balances = await query(
    `WITH closed AS (
       SELECT report_date FROM settlement_days WHERE provider = ANY($2::text[]) AND status = 'closed'
        GROUP BY report_date HAVING count(*) = cardinality($2::text[])),
     ledger AS (
       SELECT e.vendor_id, c.report_date AS balance_date,
              COALESCE(sum(e.available_delta_cents) FILTER (WHERE e.created_at < ${dayStart('c.report_date')}), 0) AS opening_available_cents,
              COALESCE(sum(e.reserved_delta_cents) FILTER (WHERE e.created_at < ${dayStart('c.report_date')}), 0) AS opening_reserved_cents,
              ${['fund', 'reserve']
                .map((kind, index) => `COALESCE(sum(e.amount_cents) FILTER (WHERE e.created_at >= ${dayStart('c.report_date')} AND e.kind = '${kind}'), 0) AS ${['funded_cents', 'reserved_cents'][index]}`)
                .join(', ')},
              COALESCE(sum(p.amount_cents) FILTER (WHERE e.created_at >= ${dayStart('c.report_date')} AND e.kind = 'settle'), 0) AS settled_amount_cents,
              COALESCE(sum(p.fee_cents) FILTER (WHERE e.created_at >= ${dayStart('c.report_date')} AND e.kind = 'settle'), 0) AS settled_fee_cents,
              ${[['release', 'released_cents'], ['reverse', 'reversed_cents'], ['resettle', 'resettled_cents'], ['adjust_debit', 'adjusted_debit_cents'], ['adjust_credit', 'adjusted_credit_cents']]
                .map(([kind, column]) => `COALESCE(sum(e.amount_cents) FILTER (WHERE e.created_at >= ${dayStart('c.report_date')} AND e.kind = '${kind}'), 0) AS ${column}`)
                .join(', ')},
              sum(e.available_delta_cents) AS closing_available_cents, sum(e.reserved_delta_cents) AS closing_reserved_cents
         FROM closed c JOIN ledger_entries e ON e.created_at < ${dayEnd('c.report_date')} LEFT JOIN payouts p ON p.id = e.payout_id
        WHERE ${inScope('e.vendor_id')}
        GROUP BY e.vendor_id, c.report_date),
     stored AS (SELECT * FROM payout_daily_balances WHERE ${inScope('vendor_id')})
     SELECT COALESCE(b.vendor_id, x.vendor_id)::text AS vendor_id, to_char(COALESCE(b.balance_date, x.balance_date), 'YYYY-MM-DD') AS balance_date,
            b.vendor_id IS NULL AS missing, x.vendor_id IS NULL AS not_closed_or_no_entries, json_build_object(${pairs(COMPARED_BALANCE_AMOUNTS)}) AS stored_vs_ledger
       FROM ledger x FULL JOIN stored b ON b.vendor_id = x.vendor_id AND b.balance_date = x.balance_date
      WHERE b.vendor_id IS NULL OR x.vendor_id IS NULL OR ${differences(COMPARED_BALANCE_AMOUNTS)}`,
    [vendors, PAYOUT_PROVIDERS],
  );
  const [{ examined }] = await query(`SELECT count(*)::int AS examined FROM payout_daily_balances WHERE ${inScope('vendor_id')}`, [vendors]);
  report.examined.closedDayBalances = Number(examined);
  for (const row of balances) {
    const problem = row.missing ? 'a vendor with ledger entries has no balance for the closed day' : row.not_closed_or_no_entries ? 'a balance for a day that is not closed, or of a vendor without entries' : 'the closed day balance differs from the ledger';
    report.violations.push({ invariant: 'closedDayBalances', subject: `${String(row.vendor_id)}:${String(row.balance_date)}`, details: { problem, stored_vs_ledger: row.stored_vs_ledger } });
  }

  const totals = await query(
    `WITH closed AS (SELECT report_date FROM settlement_days WHERE provider = 'dvs' AND status = 'closed'),
     purchases AS (
       SELECT t.vendor_id, c.report_date AS total_date,
              count(*) FILTER (WHERE t.completed_at >= ${dayStart('c.report_date')} AND t.completed_at < ${dayEnd('c.report_date')})::int AS charged_count,
              COALESCE(sum(t.charge_cents) FILTER (WHERE t.completed_at >= ${dayStart('c.report_date')} AND t.completed_at < ${dayEnd('c.report_date')}), 0) AS charged_cents,
              count(*) FILTER (WHERE t.reversed_at >= ${dayStart('c.report_date')} AND t.reversed_at < ${dayEnd('c.report_date')})::int AS reversed_count,
              COALESCE(sum(t.charge_cents) FILTER (WHERE t.reversed_at >= ${dayStart('c.report_date')} AND t.reversed_at < ${dayEnd('c.report_date')}), 0) AS reversed_cents
         FROM closed c JOIN purchase_transactions t
           ON (t.completed_at >= ${dayStart('c.report_date')} AND t.completed_at < ${dayEnd('c.report_date')})
           OR (t.reversed_at >= ${dayStart('c.report_date')} AND t.reversed_at < ${dayEnd('c.report_date')})
        WHERE ${inScope('t.vendor_id')}
        GROUP BY t.vendor_id, c.report_date),
     ledger AS (SELECT *, charged_cents - reversed_cents AS net_cents FROM purchases),
     stored AS (SELECT * FROM purchase_daily_totals WHERE ${inScope('vendor_id')})
     SELECT COALESCE(b.vendor_id, x.vendor_id)::text AS vendor_id, to_char(COALESCE(b.total_date, x.total_date), 'YYYY-MM-DD') AS total_date,
            b.vendor_id IS NULL AS missing, json_build_object(${pairs(COMPARED_TOTAL_AMOUNTS)}) AS stored_vs_records
       FROM ledger x FULL JOIN stored b ON b.vendor_id = x.vendor_id AND b.total_date = x.total_date
      WHERE b.vendor_id IS NULL OR x.vendor_id IS NULL OR ${differences(COMPARED_TOTAL_AMOUNTS)}`,
    [vendors],
  );
  const [{ examined: examinedTotals }] = await query(`SELECT count(*)::int AS examined FROM purchase_daily_totals WHERE ${inScope('vendor_id')}`, [vendors]);
  report.examined.closedDayPurchaseTotals = Number(examinedTotals);
  for (const row of totals) {
    const problem = row.missing ? 'a vendor with purchases that day has no totals for the closed day' : 'the closed day purchase totals differ from the purchase records';
    report.violations.push({ invariant: 'closedDayPurchaseTotals', subject: `${String(row.vendor_id)}:${String(row.total_date)}`, details: { problem, stored_vs_records: row.stored_vs_records } });
  }
}
