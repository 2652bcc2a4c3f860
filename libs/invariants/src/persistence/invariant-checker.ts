/**
 * The money invariants of both capabilities, checked against a live database (and, when the
 * provider is the sandbox, against its own record of what it received). Every check is a
 * read-only query, so it can run beside live traffic; an empty `violations` list means the
 * books are right at the moment of each query.
 *
 * Used by `npm run check:invariants` (check-invariants.ts) and called in process at the end of
 * every reliability suite, scoped to the vendors that suite created.
 *
 * This module is the invariants lib's persistence layer: each check is one read-only query over
 * both domains' tables and a comparison of its rows, so the SQL and the rule it checks stay side
 * by side. It lives in its own lib (#invariants), above both domains, so that #database (a
 * platform lib) knows nothing of the domains' tables.
 */

import { DEFAULT_PAYOUT_HOLD_MAX_AGE_MS } from '#config';
import { checkPayoutHoldAges } from './payout-hold-invariants.js';
import { checkOneSettlingLinePerRecord } from './settlement-line-invariants.js';
import { checkCorrectionsApproved, checkManualResolutions } from './staff-invariants.js';
import { checkWebhooks } from './webhook-invariants.js';
import { checkClosedDays } from './closed-day-invariants.js';
import { countExamined, inScope, type InvariantQuery } from './invariant-query.js';


/** A provider sandbox whose submission witness (`GET /__sandbox/submissions/summary`) is the authority on repeats. */
export interface SubmissionWitnessSource {
  url: string;
  apiKey: string;
  /** false: an unreachable witness becomes a warning (e.g. a real provider, which has none); default true. */
  required?: boolean;
}

export interface InvariantCheckOptions {
  /** Only these vendors' rows (tests share one database); all vendors when absent. */
  vendorIds?: readonly string[];
  sandboxes?: readonly SubmissionWitnessSource[];
  /** Bounds each witness request. */
  witnessTimeoutMs?: number;
  /** PAYOUT_HOLD_MAX_AGE_MS: the oldest a payout hold may be without an open staff item (its default when absent). */
  payoutHoldMaxAgeMs?: number;
}

export const INVARIANTS = {
  ledgerSums: 'ledger entries sum to available and reserved for every account',
  nonNegativeBalances: 'no balance is negative, except an available balance in debt that its correction debits (resettle, adjust_debit) explain',
  reservedHoldsOpenPayouts: 'reserved equals amount + fee of the open (pending, needs_review) payouts',
  payoutEntriesMatchStatus:
    'every payout has one reserve entry, and exactly the settle/release/reverse entries its status implies (a paid payout exactly one settle, or one release and one resettle when it was paid after we released it)',
  batchTotals: 'a batch item count and totals equal its items',
  singleProviderSubmission: 'no purchase and no payout reached the provider more than once',
  dailyAllowance: 'daily allowance used equals the admitted charges per vendor and Johannesburg day, minus those verified failed',
  allowanceReturnedOnlyOnFailure: 'allowance is returned exactly for failed purchases',
  quoteFundsOneTransaction: 'no quote funds two transactions, and a funded quote is marked used by the same vendor for the same charge',
  idempotencyRecordsMatch: 'every idempotency record names a transaction with its own quote and reference',
  velocityCounters: 'the per-second velocity counters equal the purchases admitted in each second (last seven days)',
  settlementLines: 'every settlement report line is matched or applied to one of our records, or has an open or resolved reconciliation exception',
  settlementLineNotHidden: 'no settlement line is marked as an exception that had already been resolved when the line arrived (a resolved exception hides nothing)',
  oneSettlingLinePerRecord: 'no payout or purchase has more than one matched or applied settlement line of the same status (a second one is a duplicate_line exception)',
  releasedPayoutNotProvedPaid: 'no payout stays failed (its amount + fee released) while a settlement line of the provider proves it paid or reversed',
  payoutHoldsJustified:
    'a payout holds a reservation only while its submission is open (pending, with a status poll scheduled, or queued for submission) or it is an open review item (needs_review)',
  payoutHoldsBounded:
    'no payout holds funds (pending, needs_review) longer than PAYOUT_HOLD_MAX_AGE_MS without an open staff item (an open reconciliation exception naming it, or a pending staff proposal about it)',
  webhookEventPerMove: 'every transaction and payout status move a webhook reports (since webhooks were deployed) has its event',
  webhookDeliveredWith2xx: 'no webhook delivery is marked delivered without an attempt on record that got a 2xx',
  manualResolutionApproved:
    'every manual resolution of a review item rests on a proposal of the same item and outcome approved by someone other than its proposer, and no item was moved by staff without one',
  closedDayBalances:
    'every vendor with ledger entries has a payout balance for each date whose payout provider-days are closed, equal to the ledger (opening, movements by kind, closing), and no balance exists for a day not closed',
  closedDayPurchaseTotals: "every vendor's purchase totals of a closed purchase provider-day equal its purchases completed and reversed that day",
  manualResolutionAgreesWithProvider: 'no manual resolution contradicts what the provider verifiably said about the item, and the item still shows the resolved outcome',
  correctionApproved:
    'every adjust_debit / adjust_credit entry rests on an approved exception.resolve proposal of the same exception, kind and amount, approved by someone other than its proposer, that resolved the exception',
} as const;

export type InvariantName = keyof typeof INVARIANTS;

export interface InvariantViolation {
  invariant: InvariantName;
  /** The account, payout, transaction, quote or provider id concerned. */
  subject: string;
  details: Record<string, unknown>;
}

export interface InvariantReport {
  ok: boolean;
  checkedAt: string;
  scope: { vendors: readonly string[] | 'all'; sandboxes: string[] };
  /** Rows examined per check, so a report of zero violations over zero rows is visible as such. */
  examined: Partial<Record<InvariantName, number>>;
  violations: InvariantViolation[];
  /** Witness sources that could not be read (the check of repeats is then incomplete). */
  warnings: string[];
}

export class WitnessUnavailableError extends Error {}

/** Runs every check; never throws for a violation, only for a database or required witness failure. */
export async function checkInvariants(query: InvariantQuery, options: InvariantCheckOptions = {}): Promise<InvariantReport> {
  const vendors = options.vendorIds ? [...options.vendorIds] : null;
  const report: InvariantReport = {
    ok: true,
    checkedAt: new Date().toISOString(),
    scope: { vendors: vendors ?? 'all', sandboxes: (options.sandboxes ?? []).map((sandbox) => sandbox.url) },
    examined: {},
    violations: [],
    warnings: [],
  };
  const checks: Array<(query: InvariantQuery, vendors: string[] | null, report: InvariantReport) => Promise<void>> = [
    checkLedger,
    checkPayoutEntries,
    checkBatchTotals,
    checkDailyAllowance,
    checkQuotes,
    checkIdempotencyRecords,
    checkVelocityCounters,
    checkSettlementLines,
    checkLinesNotHidden,
    checkOneSettlingLinePerRecord,
    checkReleasedPayoutsNotProvedPaid,
    checkPayoutHoldsJustified,
    checkWebhooks,
    checkManualResolutions,
    checkClosedDays,
    checkCorrectionsApproved,
    (query, scope, into) => checkPayoutHoldAges(query, scope, into, options.payoutHoldMaxAgeMs ?? DEFAULT_PAYOUT_HOLD_MAX_AGE_MS),
  ];
  for (const check of checks) await check(query, vendors, report);
  for (const sandbox of options.sandboxes ?? []) {
    try {
      await checkWitness(query, vendors, sandbox, options.witnessTimeoutMs ?? 10_000, report);
    } catch (error) {
      if (!(error instanceof WitnessUnavailableError) || sandbox.required !== false) throw error;
      report.warnings.push(error.message);
    }
  }
  report.ok = report.violations.length === 0;
  return report;
}

function add(report: InvariantReport, invariant: InvariantName, subject: string, details: Record<string, unknown>): void {
  report.violations.push({ invariant, subject, details });
}

async function checkLedger(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
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
      add(report, 'ledgerSums', account, {
        available_cents: available.toString(),
        entries_available_cents: entriesAvailable.toString(),
        reserved_cents: reserved.toString(),
        entries_reserved_cents: entriesReserved.toString(),
      });
    }
    // A debt is allowed only as far as correction debits made it: without them the balance would not be negative.
    const correctionDebits = BigInt(String(row.correction_debits));
    if (available + correctionDebits < 0n || reserved < 0n) {
      add(report, 'nonNegativeBalances', account, { available_cents: available.toString(), reserved_cents: reserved.toString(), correction_debits_cents: correctionDebits.toString() });
    }
    if (reserved !== openPayouts) add(report, 'reservedHoldsOpenPayouts', account, { reserved_cents: reserved.toString(), open_payouts_cents: openPayouts.toString() });
  }
  // The allowance counter is a balance too.
  const negativeAllowances = await query(
    `SELECT vendor_id, to_char(day, 'YYYY-MM-DD') AS day, used_cents::text AS used FROM purchase_daily_allowances
      WHERE used_cents < 0 AND ${inScope('vendor_id')}`,
    [vendors],
  );
  for (const row of negativeAllowances) add(report, 'nonNegativeBalances', `${row.vendor_id}/${row.day}`, { used_cents: row.used });
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

async function checkPayoutEntries(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
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
    add(report, 'payoutEntriesMatchStatus', String(row.id), {
      status,
      entries: { reserve: row.reserve, settle: row.settle, release: row.release, reverse: row.reverse, resettle: row.resettle },
      expected: EXPECTED_ENTRIES[status] ?? null,
      entries_with_wrong_amount: row.wrong_amounts,
    });
  }
}

async function checkBatchTotals(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
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
      add(report, 'batchTotals', String(row.id), {
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
 * The daily allowance rule (docs/PURCHASE.md): the allowance is consumed at admission and given back only when the provider
 * verifiably took no money (`failed`, marked by `allowance_returned_at`), never on reversal.
 */
async function checkDailyAllowance(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
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
      add(report, 'dailyAllowance', `${row.vendor_id}/${row.day}`, {
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
    add(report, 'allowanceReturnedOnlyOnFailure', String(row.id), { status: row.status, allowance_returned_at: row.allowance_returned_at });
  }
}

async function checkQuotes(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
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
      add(report, 'quoteFundsOneTransaction', String(row.id), {
        transactions: row.transactions,
        transactions_with_other_vendor_or_charge: row.mismatched,
        used_at: row.used_at,
      });
    }
  }
}

async function checkIdempotencyRecords(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
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
    add(report, 'idempotencyRecordsMatch', String(row.transaction_id), { vendor_id: row.vendor_id });
  }
}

interface WitnessSummary {
  external_ids: Array<{ external_id: string; count: number; duplicate_attempts: number }>;
  merchant_references: Array<{ merchant_reference: string; count: number; duplicate_attempts: number }>;
}

/** Velocity limits are checked against these counters (purchase_admit, migration 1763781500000). */
async function checkVelocityCounters(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
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
      add(report, 'velocityCounters', `${row.vendor_id}/${row.second}`, { admitted: row.admitted, counted: row.counted });
    }
  }
}

/**
 * The sandbox counts every create and submit call it receives; any id it received more than
 * once is a second provider submission. Scoped checks keep only the ids this database holds for
 * the scoped vendors; an unscoped check reports every repeat the sandbox saw.
 */
async function checkWitness(
  query: InvariantQuery,
  vendors: string[] | null,
  sandbox: SubmissionWitnessSource,
  timeoutMs: number,
  report: InvariantReport,
): Promise<void> {
  let summary: WitnessSummary;
  try {
    const response = await fetch(`${sandbox.url.replace(/\/$/, '')}/__sandbox/submissions/summary`, {
      headers: { 'x-api-key': sandbox.apiKey },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    summary = (await response.json()) as WitnessSummary;
  } catch (error) {
    throw new WitnessUnavailableError(`submission witness of ${sandbox.url} unavailable: ${(error as Error).message}`);
  }
  const repeatedPurchases = summary.external_ids ?? [];
  const repeatedPayouts = summary.merchant_references ?? [];
  const purchaseIds = repeatedPurchases.map((entry) => entry.external_id).filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  const ours = new Map<string, string>();
  if (purchaseIds.length > 0) {
    const rows = await query(`SELECT id::text AS id, vendor_id FROM purchase_transactions WHERE id = ANY($2::uuid[]) AND ${inScope('vendor_id')}`, [vendors, purchaseIds]);
    for (const row of rows) ours.set(String(row.id), String(row.vendor_id));
  }
  if (repeatedPayouts.length > 0) {
    const rows = await query(`SELECT merchant_reference, vendor_id FROM payouts WHERE merchant_reference = ANY($2::text[]) AND ${inScope('vendor_id')}`, [
      vendors,
      repeatedPayouts.map((entry) => entry.merchant_reference),
    ]);
    for (const row of rows) ours.set(String(row.merchant_reference), String(row.vendor_id));
  }
  report.examined.singleProviderSubmission = (report.examined.singleProviderSubmission ?? 0) + repeatedPurchases.length + repeatedPayouts.length;
  const repeats = [
    ...repeatedPurchases.map(({ external_id: id, ...tally }) => ({ id, kind: 'purchase', ...tally })),
    ...repeatedPayouts.map(({ merchant_reference: id, ...tally }) => ({ id, kind: 'payout', ...tally })),
  ];
  for (const { id, kind, count, duplicate_attempts } of repeats) {
    if (vendors && !ours.has(id)) continue;
    add(report, 'singleProviderSubmission', id, { kind, sandbox: sandbox.url, count, duplicate_attempts, known: ours.has(id) });
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
async function checkSettlementLines(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
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
    add(report, 'settlementLines', `settlement_line:${String(row.id)}`, { provider: row.provider, report_date: row.report_date, match_result: row.match_result, exception_id: row.exception_id });
  }
}

/**
 * A line that disagrees raises its own exception (issue 26): a line marked `exception` that names
 * one resolved before the line was even received was swallowed by it, and nobody sees it.
 */
async function checkLinesNotHidden(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
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
    add(report, 'settlementLineNotHidden', `settlement_line:${String(row.id)}`, {
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
async function checkReleasedPayoutsNotProvedPaid(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  report.examined.releasedPayoutNotProvedPaid = await countExamined(query, vendors, `FROM payouts WHERE status = 'failed' AND ${inScope('vendor_id')}`);
  const rows = await query(
    `SELECT p.id, p.status_reason, (p.amount_cents + p.fee_cents)::text AS released_cents, l.id::text AS line_id, l.status AS line_status
       FROM payouts p JOIN settlement_lines l ON l.payout_id = p.id
      WHERE p.status = 'failed' AND ${inScope('p.vendor_id')}
        -- A line that misstates the amount or the provider reference proves nothing about ours (it is an exception of its own).
        AND l.amount_cents = p.amount_cents AND (p.provider_reference IS NULL OR p.provider_reference = l.provider_reference)`,
    [vendors],
  );
  for (const row of rows) {
    add(report, 'releasedPayoutNotProvedPaid', String(row.id), {
      status_reason: row.status_reason,
      released_cents: row.released_cents,
      settlement_line_id: row.line_id,
      line_status: row.line_status,
    });
  }
}

// ---- Payout holds (issue 11, payout part) ----

/**
 * Every hold must belong to a payout something will still resolve. A pending payout that was
 * handed to a provider (`submission_started_at` set) is resolved only by its status-poll chain,
 * so one with no poll scheduled would keep its funds reserved for ever: that is the violation.
 * Queued batch items (never submitted) are picked up by the sweeper from `created_at`, and
 * needs_review payouts are open review items (also polled on the slow schedule); both are
 * justified. Holds of closed payouts are caught by reservedHoldsOpenPayouts.
 */
async function checkPayoutHoldsJustified(query: InvariantQuery, vendors: string[] | null, report: InvariantReport): Promise<void> {
  report.examined.payoutHoldsJustified = await countExamined(query, vendors, `FROM payouts WHERE status IN ('pending', 'needs_review') AND ${inScope('vendor_id')}`);
  const rows = await query(
    `SELECT id, status, status_reason, submission_started_at, (amount_cents + fee_cents)::text AS hold_cents FROM payouts
      WHERE status = 'pending' AND submission_started_at IS NOT NULL AND next_poll_at IS NULL AND ${inScope('vendor_id')}`,
    [vendors],
  );
  for (const row of rows) {
    add(report, 'payoutHoldsJustified', String(row.id), {
      status: row.status,
      status_reason: row.status_reason,
      submission_started_at: row.submission_started_at,
      hold_cents: row.hold_cents,
      problem: 'submitted, still pending, and no status poll scheduled',
    });
  }
}
