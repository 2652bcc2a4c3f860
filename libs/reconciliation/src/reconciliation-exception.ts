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
 * - `hold_overdue`: a payout has held the vendor's funds longer than PAYOUT_HOLD_MAX_AGE_MS and no
 *   staff item owns it (raised once per hold by the payout worker's sweep, PayoutHoldWatch).
 */
export const RECONCILIATION_EXCEPTION_KINDS = [
  'late_creation', 'amount_mismatch', 'reference_mismatch', 'status_conflict', 'unknown_line', 'missing_line', 'hold_overdue',
] as const;
export type ReconciliationExceptionKind = (typeof RECONCILIATION_EXCEPTION_KINDS)[number];

/**
 * What raising an exception needs: the domain, kind and dedupe key, the rest as known.
 * `dedupeKey` must name the disagreement, not the moment it was seen.
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
