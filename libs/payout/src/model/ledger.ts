import type { Cents } from '#money';

/**
 * Each kind has a fixed effect on the balances (see LedgerRepository); `ledger_entries` is append-only.
 * The last three are corrections after the fact (docs/RECONCILIATION.md, "Corrections"): `resettle`
 * debits the amount + fee of a payout we released that the provider proved paid; `adjust_debit` /
 * `adjust_credit` move `available` by a person's decision. Never an edit of an earlier entry.
 */
export type LedgerEntryKind = 'fund' | 'reserve' | 'settle' | 'release' | 'reverse' | LedgerCorrectionKind;

export type LedgerCorrectionKind = 'resettle' | 'adjust_debit' | 'adjust_credit';

/** A correction entry: why, the exception or approved proposal it comes from, and who approved it (null when automatic). */
export interface LedgerCorrection {
  kind: LedgerCorrectionKind;
  vendorId: string;
  cents: Cents;
  payoutId: string | null;
  reason: string;
  exceptionId: string | null;
  proposalId: string | null;
  approvedBy: string | null;
}

/** A correction entry as staff read it (the vendor's page, the exception's page). */
export interface LedgerCorrectionEntry {
  id: string;
  kind: LedgerCorrectionKind;
  vendorId: string;
  amountCents: Cents;
  /** Its effect on `available` (negative for a debit). */
  availableDeltaCents: Cents;
  payoutId: string | null;
  reason: string;
  exceptionId: string | null;
  proposalId: string | null;
  approvedBy: string | null;
  createdAt: Date;
}

export interface AccountBalances {
  vendorId: string;
  availableCents: Cents;
  reservedCents: Cents;
}

/** One payout's hold: amount plus the snapshotted fee. */
export interface PayoutHold {
  payoutId: string;
  cents: Cents;
}

export interface LedgerDiscrepancy extends AccountBalances {
  entriesAvailableCents: Cents;
  entriesReservedCents: Cents;
  /** amount + fee of the vendor's pending and needs_review payouts: what `reserved` must hold. */
  openPayoutsCents: Cents;
}

/**
 * What the vendor owes: a negative `available` (only a correction debit makes it so). Zero when
 * the account is not in debt.
 */
export function debtOf(balances: Pick<AccountBalances, 'availableCents'>): Cents {
  return balances.availableCents < 0n ? -balances.availableCents : 0n;
}

export interface PayoutAccountSnapshot extends AccountBalances {
  id: string;
  vendorName: string;
  feePerPayoutCents: Cents;
}
