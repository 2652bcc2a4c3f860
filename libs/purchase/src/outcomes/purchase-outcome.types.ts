import type { PurchaseProviderTransaction } from '#providers';
import type { TransactionRecord } from '../model/transaction-record.js';

/** What one provider lookup said. */
export type ProviderObservation =
  | { kind: 'found'; transaction: PurchaseProviderTransaction }
  | { kind: 'not_found' }
  | { kind: 'unavailable'; reason: string }
  /** The provider answered about another external id than ours: not evidence about our purchase. */
  | { kind: 'mismatched'; providerTransactionId: string; answeredExternalId: string | null; providerStatus: string };

/** Safe error codes a failed transaction may carry (vendor-visible). */
export const PURCHASE_FAILURE_CODES = {
  /** The provider (operator) declined the purchase; no money taken. */
  declined: 'PROVIDER_DECLINED',
  /** The provider refused the submission and, by lookup, holds no transaction. */
  rejected: 'PROVIDER_REJECTED',
  /** The submission failed or went unanswered and, by repeated lookup, the provider created nothing. */
  notCreated: 'PROVIDER_NOT_CREATED',
  /** The purchase could not be submitted within the verification window; the provider holds nothing. */
  notSubmitted: 'NOT_SUBMITTED',
  /**
   * The provider could not answer for it and platform staff, having checked with the provider
   * (four-eyes), resolved it as failed; no money taken. Not PROVIDER_NOT_CREATED: nobody proved
   * by lookup that the provider created nothing, and the provider may well have.
   */
  resolvedByStaff: 'RESOLVED_BY_STAFF',
} as const;

/** What the vendor reads on a purchase staff resolved, when the resolution gave no message of its own. */
export const STAFF_RESOLUTION_STANDARD_MESSAGE = 'Resolved by our support team after checking with the provider.';

/** What a staff resolution came to: moved, or refused with the reason (nothing changed). */
export type StaffResolution = { resolved: true; record: TransactionRecord } | { resolved: false; reason: string };

/** The final outcome a provider status names, if it names one (the provider's detailed statuses). */
export function verifiedOutcomeOf(providerStatus: string): 'completed' | 'failed' | null {
  const status = providerStatus.toUpperCase();
  if (status === 'COMPLETED' || status === 'REVERSED') return 'completed';
  if (status === 'DECLINED' || status === 'REJECTED' || status === 'FAILED') return 'failed';
  return null;
}

/**
 * What proves the provider holds a transaction for a purchase we failed: a verified lookup, or a
 * line of the provider's settlement report (equally a provider statement). Never a PIN.
 */
export interface LateCreationEvidence {
  source: 'lookup' | 'settlement_report';
  providerTransactionId: string;
  /** The provider's own detailed status (e.g. `COMPLETED`). */
  providerStatus: string;
  /** The provider's wholesale amount and destination amount, exact decimal strings as it sent them. */
  wholesaleAmount?: string | null;
  wholesaleCurrency?: string | null;
  destinationAmount?: string | null;
  destinationUnit?: string | null;
  /** Johannesburg day of the settlement report, when the evidence is a report line. */
  reportDate?: string | null;
}

export function lateCreationDedupeKey(transactionId: string): string {
  return `purchase:${transactionId}:late_creation`;
}

/**
 * What comes after a recording in the transaction's polling chain, decided on the state the
 * recording leaves: another check after `delayMs`, no further automatic check (`stop`), or
 * nothing to change (`keep`).
 */
export type NextCheck = { delayMs: number } | 'stop' | 'keep';

/** What a verification writes in the recording's own database transaction besides the lookup. */
export interface RecordingExtras {
  /** Callback markers up to this id are answered (consumed unless the provider was unavailable). */
  consumeMarkersUpTo?: string | null;
  /** Plans the polling chain from the state after the recording; applied in the same UPDATE. */
  nextCheck?: (after: TransactionRecord & { statusMoved: boolean }) => NextCheck;
}

export function evidenceOf(found: PurchaseProviderTransaction): LateCreationEvidence {
  return {
    source: 'lookup',
    providerTransactionId: String(found.providerTransactionId),
    providerStatus: found.providerStatus,
    wholesaleAmount: found.wholesaleAmount,
    wholesaleCurrency: found.wholesaleCurrency,
    destinationAmount: found.destinationAmount,
    destinationUnit: found.destinationUnit,
  };
}

export function parseInstant(value: string | null | undefined): Date | null {
  if (!value) return null;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}
