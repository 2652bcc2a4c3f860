/** Which side of the business an exception belongs to. */
export type ReconciliationDomain = 'purchase' | 'payout';

/**
 * What kind of disagreement was found:
 * - `late_creation`: the provider has (or reports) a transaction we had already closed as failed.
 * - `amount_mismatch`: the provider's amount differs from ours.
 * - `reference_mismatch`: the provider answered with a different merchant reference or id.
 * - `status_conflict`: the provider's final status contradicts a verified outcome we recorded.
 * - `unknown_line`: a report line for which we hold no record.
 * - `missing_line`: a record of ours that the provider's report should hold and does not.
 * - `paid_after_release`: the provider proved paid a payout we had released (failed); the books
 *   were corrected (a `resettle` entry), and staff deal with the vendor, who may now be in debt.
 * - `reversed_after_correction`: the provider reversed a payout whose books were corrected after
 *   the fact; amount + fee went back to the vendor, and staff check what was agreed with them.
 * - `duplicate_line`: a second settling (or reversing) line for one record; nothing moved twice.
 * - `line_withdrawn`: a re-issued report no longer holds a line we had matched or applied.
 * - `hold_overdue`: a payout has held the vendor's funds longer than PAYOUT_HOLD_MAX_AGE_MS and no
 *   staff item owns it (raised once per hold by the payout worker's sweep, PayoutHoldWatchService).
 * - `missing_report`: a provider's settlement report for a day was not fetched by its deadline
 *   (SETTLEMENT_REPORT_DEADLINE_MS after the day ended); raised once per provider-day, the
 *   schedule keeps asking for it.
 *
 * Each exception is one observation (a report line, a lookup answer): a resolved one never
 * hides a later disagreement about the same record, which raises its own.
 */
export const RECONCILIATION_EXCEPTION_KINDS = [
  'late_creation', 'amount_mismatch', 'reference_mismatch', 'status_conflict', 'unknown_line', 'missing_line',
  'paid_after_release', 'reversed_after_correction', 'duplicate_line', 'line_withdrawn', 'hold_overdue', 'missing_report',
] as const;
export type ReconciliationExceptionKind = (typeof RECONCILIATION_EXCEPTION_KINDS)[number];

/**
 * What raising an exception needs: the domain, kind and dedupe key, the rest as known.
 * `dedupeKey` names the observation (a report line's id, a lookup's answer), not the record
 * alone, so a resolved exception never swallows a new disagreement about the same record.
 */
export type RaiseReconciliationException = Pick<ReconciliationException, 'domain' | 'kind' | 'dedupeKey'> &
  Partial<Pick<ReconciliationException, 'vendorId' | 'purchaseTransactionId' | 'payoutId' | 'provider' | 'reportDate' | 'details'>>;

export interface ReconciliationException {
  id: string;
  domain: ReconciliationDomain;
  kind: ReconciliationExceptionKind;
  dedupeKey: string;
  vendorId: string | null;
  purchaseTransactionId: string | null;
  payoutId: string | null;
  provider: string | null;
  /** Johannesburg calendar day of the settlement report the line came from (YYYY-MM-DD), if any. */
  reportDate: string | null;
  /** Evidence for staff: what we hold and what the provider said. Never secrets (PINs, tokens). */
  details: Record<string, unknown>;
  status: 'open' | 'resolved';
  raisedAt: Date;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  resolution: string | null;
}
