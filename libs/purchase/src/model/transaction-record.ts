import type { Cents } from '#money';
import type { IdentifierGroups } from './catalogue-types.js';
import type { TransactionStatus } from './transaction-status.js';

/**
 * A transaction (`purchase_transactions`) as the domain reads it: what the worker, the sweeper,
 * settlement and staff decide on. Never sent to a vendor (the vendor sees TransactionView).
 */
export interface TransactionRecord {
  id: string;
  vendorId: string;
  reference: string;
  status: TransactionStatus;
  productId: number;
  chargeCents: Cents;
  wholesaleCents: Cents;
  currency: string;
  destinationAmount: string;
  destinationUnit: string;
  identifiers: IdentifierGroups;
  /** Johannesburg day whose allowance the charge consumed (YYYY-MM-DD). */
  admissionDay: string;
  createdAt: Date;
  errorCode: string | null;
  /** Set before the provider's create is called: from then on the outcome is resolved by lookup only. */
  submissionAttemptedAt: Date | null;
  /** When the create call returned or failed (our timeout included). */
  submissionEndedAt: Date | null;
  /** accepted | rejected | http_error | unknown | found_before_create: what the create call itself told us. */
  submissionOutcome: string | null;
  providerTransactionId: string | null;
  /** The provider's own detailed status from its last answer. */
  providerStatus: string | null;
  lastCheckedAt: Date | null;
  allowanceReturnedAt: Date | null;
  /** Consecutive provider searches that found nothing, after a create attempt. */
  notFoundStreak: number;
  /** Sequence of the scheduled check; a verify job for an older sequence does not reschedule. */
  checkSeq: number;
  nextCheckAt: Date | null;
  reversalWatchUntil: Date | null;
}

/** The record under the row's lock, with the database's clock read in the same statement. */
export interface LockedTransactionRecord extends TransactionRecord {
  now: Date;
}

/**
 * A record as a worker's claim read it (a due check, a callback marker), with what lets its
 * recording write without taking the row's lock (PurchaseOutcomesService.record): the row version
 * the claim saw (its `xmin`, which every write of the row changes) and the claim's clock.
 */
export interface ClaimedTransactionRecord extends TransactionRecord {
  version: string;
  clock: ClaimClock;
}

/**
 * The database's clock as a claim read it (`now()` of its statement) and the worker's monotonic
 * clock when the claim answered: a recording made later reads the database's time as the one plus
 * what the other has advanced since (clockAfterClaim), within a round trip of `now()`, never behind
 * the claim, and immune to the worker's wall clock being set.
 */
export interface ClaimClock {
  databaseNow: Date;
  monotonicMs: number;
}

/** The database's time now, as far as a claim's clock tells it. */
export function clockAfterClaim(clock: ClaimClock): Date {
  return new Date(clock.databaseNow.getTime() + Math.max(0, performance.now() - clock.monotonicMs));
}

/** A transaction about to be submitted, with its product's pricing kind. */
export interface SubmissionRecord extends TransactionRecord {
  pricingKind: string;
}

/** A purchase as staff see it in the back-office: across vendors, never a PIN. */
export type PurchaseStaffItem = Pick<
  TransactionRecord,
  | 'id' | 'vendorId' | 'reference' | 'status' | 'productId' | 'chargeCents' | 'currency' | 'errorCode' | 'createdAt' | 'submissionAttemptedAt'
  | 'submissionEndedAt' | 'submissionOutcome' | 'providerTransactionId' | 'providerStatus' | 'lastCheckedAt' | 'notFoundStreak'
> & {
  vendorName: string;
  /** When it entered review (else its admission). */
  waitingSince: Date;
};

/** One status move of a transaction, as the vendor dashboard's history shows it. */
export interface TransactionEventView {
  from_status: TransactionStatus | null;
  to_status: TransactionStatus;
  reason: string;
  created_at: Date;
}

/** One recorded status move and what the provider said that caused it (staff). */
export interface PurchaseStaffEvent extends TransactionEventView {
  provider_status: string | null;
}
