import type { IdentifierGroups } from './catalogue-types.js';
import type { TransactionStatus } from './transaction-status.js';

/**
 * A transaction as the worker, the sweeper and settlement read it: the columns that decide what
 * may happen next. Never sent to a vendor (the vendor sees TransactionView).
 */
export interface TransactionState {
  id: string;
  vendor_id: string;
  status: TransactionStatus;
  product_id: number;
  charge_cents: string;
  wholesale_cents: string;
  currency: string;
  destination_amount: string;
  destination_unit: string;
  identifiers: IdentifierGroups;
  /** Johannesburg day whose allowance the charge consumed (YYYY-MM-DD). */
  admission_day: string;
  created_at: Date;
  /** Set before the provider's create is called: from then on the outcome is resolved by lookup only. */
  submission_attempted_at: Date | null;
  /** When the create call returned or failed (our timeout included). */
  submission_ended_at: Date | null;
  /** accepted | rejected | http_error | unknown | found_before_create: what the create call itself told us. */
  submission_outcome: string | null;
  provider_transaction_id: string | null;
  allowance_returned_at: Date | null;
  /** Consecutive provider searches that found nothing, after a create attempt. */
  not_found_streak: number;
  /** Sequence of the scheduled check; a verify job for an older sequence does not reschedule. */
  check_seq: number;
  next_check_at: Date | null;
  reversal_watch_until: Date | null;
}

/** The state under the row's lock, with the database's clock read in the same statement. */
export interface LockedTransactionState extends TransactionState {
  now: Date;
}

/** One status move of a transaction, as the vendor dashboard's history shows it. */
export interface TransactionEventView {
  from_status: TransactionStatus | null;
  to_status: TransactionStatus;
  reason: string;
  created_at: Date;
}
