import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { IdentifierGroups } from '../persistence/quote.entity.js';
import type { TransactionStatus } from '../model/transaction-status.js';

/** A purchase. Status moves only on a verified provider lookup (see transaction-status.ts). */
@Entity('purchase_transactions')
export class TransactionEntity {
  /** Also the provider's external id. */
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  @Column({ type: 'text' })
  reference: string;

  @Column({ name: 'quote_id', type: 'uuid' })
  quoteId: string;

  @Column({ name: 'product_id', type: 'integer' })
  productId: number;

  @Column({ name: 'pricing_version_id', type: 'integer' })
  pricingVersionId: number;

  @Column({ type: 'text' })
  status: TransactionStatus;

  @Column({ name: 'charge_cents', type: 'bigint' })
  chargeCents: string;

  @Column({ name: 'wholesale_cents', type: 'bigint' })
  wholesaleCents: string;

  @Column({ type: 'text' })
  currency: string;

  @Column({ name: 'destination_amount', type: 'text' })
  destinationAmount: string;

  @Column({ name: 'destination_unit', type: 'text' })
  destinationUnit: string;

  @Column({ type: 'jsonb' })
  identifiers: IdentifierGroups;

  @Column({ name: 'error_code', type: 'text', nullable: true })
  errorCode: string | null;

  /** Johannesburg day whose allowance the charge consumed (YYYY-MM-DD). */
  @Column({ name: 'admission_day', type: 'date' })
  admissionDay: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @Column({ name: 'reversed_at', type: 'timestamptz', nullable: true })
  reversedAt: Date | null;

  @Column({ name: 'failed_at', type: 'timestamptz', nullable: true })
  failedAt: Date | null;

  @Column({ name: 'review_at', type: 'timestamptz', nullable: true })
  reviewAt: Date | null;

  @Column({ name: 'allowance_returned_at', type: 'timestamptz', nullable: true })
  allowanceReturnedAt: Date | null;

  /** Set before the provider's create is called: from then on the outcome is resolved by lookup only. */
  @Column({ name: 'submission_attempted_at', type: 'timestamptz', nullable: true })
  submissionAttemptedAt: Date | null;

  /** When the create call returned or failed (our timeout included). */
  @Column({ name: 'submission_ended_at', type: 'timestamptz', nullable: true })
  submissionEndedAt: Date | null;

  /** accepted | rejected | http_error | unknown: what the create call itself told us. */
  @Column({ name: 'submission_outcome', type: 'text', nullable: true })
  submissionOutcome: string | null;

  @Column({ name: 'provider_transaction_id', type: 'bigint', nullable: true })
  providerTransactionId: string | null;

  @Column({ name: 'provider_status', type: 'text', nullable: true })
  providerStatus: string | null;

  /** Consecutive provider searches that found nothing, after a create attempt. */
  @Column({ name: 'not_found_streak', type: 'integer' })
  notFoundStreak: number;

  /** Sequence of the scheduled check; a verify job for an older sequence does not reschedule. */
  @Column({ name: 'check_seq', type: 'integer' })
  checkSeq: number;

  @Column({ name: 'next_check_at', type: 'timestamptz', nullable: true })
  nextCheckAt: Date | null;

  @Column({ name: 'last_checked_at', type: 'timestamptz', nullable: true })
  lastCheckedAt: Date | null;

  @Column({ name: 'reversal_watch_until', type: 'timestamptz', nullable: true })
  reversalWatchUntil: Date | null;
}
