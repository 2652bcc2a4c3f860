/**
 * The money invariants of both capabilities, checked against a live database (and, when the
 * provider is the sandbox, against its own record of what it received). Every check is a
 * read-only query, so it can run beside live traffic; an empty `violations` list means the
 * books are right at the moment of each query.
 *
 * Used by `npm run check:invariants` (check-invariants.ts) and called in process at the end of
 * every reliability suite, scoped to the vendors that suite created.
 *
 * This module only runs the checks, in a fixed order. The checks are the invariants lib's
 * persistence layer, one module per domain (payout-, purchase-, settlement-line-, closed-day-,
 * webhook-, staff-invariants.ts, the provider's submission witness): each is one read-only query
 * over the domains' tables and a comparison of its rows, so the SQL and the rule it checks stay
 * side by side. The lib sits above both domains so that #database (a platform lib) knows nothing
 * of the domains' tables.
 */

import { DEFAULT_PAYOUT_HOLD_MAX_AGE_MS } from '#config';
import { checkPayoutHoldAges } from './payout-hold-invariants.js';
import { checkCorrectionsApproved, checkManualResolutions } from './staff-invariants.js';
import { checkWebhooks } from './webhook-invariants.js';
import { checkClosedDays } from './closed-day-invariants.js';
import type { InvariantQuery } from './invariant-query.js';
import type { InvariantReport } from './invariant-report.js';
import { checkBatchTotals, checkLedger, checkPayoutEntries, checkPayoutHoldsJustified } from './payout-invariants.js';
import { checkDailyAllowance, checkIdempotencyRecords, checkQuotes, checkVelocityCounters } from './purchase-invariants.js';
import { checkLinesNotHidden, checkOneSettlingLinePerRecord, checkReleasedPayoutsNotProvedPaid, checkSettlementLines } from './settlement-line-invariants.js';
import { checkWitness, WitnessUnavailableError, type SubmissionWitnessSource } from './submission-witness.js';

// The lib's public names stay where callers import them from (#invariants).
export { INVARIANTS, type InvariantName, type InvariantReport, type InvariantViolation } from './invariant-report.js';
export { WitnessUnavailableError, type SubmissionWitnessSource } from './submission-witness.js';

export interface InvariantCheckOptions {
  /** Only these vendors' rows (tests share one database); all vendors when absent. */
  vendorIds?: readonly string[];
  sandboxes?: readonly SubmissionWitnessSource[];
  /** Bounds each witness request. */
  witnessTimeoutMs?: number;
  /** PAYOUT_HOLD_MAX_AGE_MS: the oldest a payout hold may be without an open staff item (its default when absent). */
  payoutHoldMaxAgeMs?: number;
}

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
