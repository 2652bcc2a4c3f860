import type { Cents } from '#money';
import type { ReconciliationException, ReconciliationExceptionKind } from './reconciliation-exception.js';

/**
 * How staff close an exception (docs/RECONCILIATION.md, "Resolutions"):
 * - `no_money_moves`: nothing to correct in our books (the provider's error, a ticket, a vendor
 *   who funded the debt); one person, with a written reason.
 * - `record_corrected`: the record was corrected through the evidence path (a verified provider
 *   answer moved it) and now agrees with what the provider said; one person, refused otherwise.
 * - `ledger_adjustment`: a debit or credit of the vendor's payout account (`adjust_debit` /
 *   `adjust_credit`) with an amount and a reason.
 * - `recovered_from_vendor` / `repaid_to_vendor`: money taken back from, or given back to, the
 *   vendor (`adjust_debit` / `adjust_credit`).
 * The last three move money: each is a four-eyes proposal, and its entry is written once, on approval.
 */
export const EXCEPTION_RESOLUTION_KINDS = ['no_money_moves', 'record_corrected', 'ledger_adjustment', 'recovered_from_vendor', 'repaid_to_vendor'] as const;
export type ExceptionResolutionKind = (typeof EXCEPTION_RESOLUTION_KINDS)[number];

export const MONEY_RESOLUTION_KINDS = ['ledger_adjustment', 'recovered_from_vendor', 'repaid_to_vendor'] as const satisfies readonly ExceptionResolutionKind[];
export type MoneyResolutionKind = (typeof MONEY_RESOLUTION_KINDS)[number];

export function isExceptionResolutionKind(value: unknown): value is ExceptionResolutionKind {
  return typeof value === 'string' && (EXCEPTION_RESOLUTION_KINDS as readonly string[]).includes(value);
}

export function isMoneyResolution(kind: ExceptionResolutionKind): kind is MoneyResolutionKind {
  return (MONEY_RESOLUTION_KINDS as readonly string[]).includes(kind);
}

/** An exception as the back-office queue shows it: the vendor's name, the record's amounts, its owner and resolution. */
export interface ExceptionDeskItem extends ReconciliationException {
  vendorName: string | null;
  /** The record's reference (payout or purchase), if any. */
  recordReference: string | null;
  /** The record's status now. */
  recordStatus: string | null;
  /** Our amount: a payout's amount, a purchase's charge. */
  ourAmountCents: Cents | null;
  /** A payout's fee (what its hold carries besides the amount). */
  ourFeeCents: Cents | null;
  ownerStaffId: string | null;
  ownerEmail: string | null;
  claimedAt: Date | null;
  resolutionKind: ExceptionResolutionKind | null;
  resolvedByStaffId: string | null;
  resolutionProposalId: string | null;
}

export interface ExceptionDeskFilter {
  status?: ReconciliationException['status'];
  kind?: ReconciliationExceptionKind;
  limit?: number;
}

/** A staff note on an exception: append-only. */
export interface ExceptionNote {
  id: string;
  author: string;
  authorStaffId: string;
  body: string;
  createdAt: Date;
}

/** A settlement report line about the exception or its record: the provider's own words. */
export interface ExceptionEvidenceLine {
  id: string;
  reportDate: string;
  provider: string;
  providerReference: string;
  merchantReference: string;
  amountCents: Cents;
  currency: string;
  status: string;
  providerStatus: string | null;
  settledAt: string | null;
  reversedAt: string | null;
  matchResult: string | null;
  exceptionId: string | null;
  withdrawnAt: Date | null;
}

/** What a resolution writes on the exception. */
export interface ExceptionResolution {
  kind: ExceptionResolutionKind;
  /** What was done, in words (the reason). */
  resolution: string;
  resolvedBy: string;
  resolvedByStaffId: string;
  proposalId: string | null;
}
