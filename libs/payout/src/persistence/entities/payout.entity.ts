import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Schema mirror of `payouts`; the domain reads and writes it through PayoutRepository's SQL. */
@Entity('payouts')
export class PayoutEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  @Column({ type: 'text' })
  reference: string;

  @Column({ name: 'batch_id', type: 'uuid', nullable: true })
  batchId: string | null;

  @Column({ name: 'batch_position', type: 'integer', nullable: true })
  batchPosition: number | null;

  @Column({ type: 'text' })
  method: string;

  @Column({ name: 'amount_cents', type: 'bigint' })
  amountCents: string;

  @Column({ name: 'fee_cents', type: 'bigint' })
  feeCents: string;

  @Column({ type: 'char', length: 3, default: 'ZAR' })
  currency: string;

  @Column({ type: 'text' })
  status: string;

  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason: string | null;

  @Column({ name: 'merchant_reference', type: 'text', unique: true })
  merchantReference: string;

  @Column({ name: 'provider_reference', type: 'text', nullable: true })
  providerReference: string | null;

  @Column({ name: 'recipient_encrypted', type: 'text' })
  recipientEncrypted: string;

  @Column({ type: 'jsonb', default: () => "'{}'::jsonb" })
  metadata: Record<string, unknown>;

  @Column({ name: 'request_fingerprint', type: 'char', length: 64 })
  requestFingerprint: string;

  @Column({ name: 'delivery_encrypted', type: 'text', nullable: true })
  deliveryEncrypted: string | null;

  @Column({ name: 'submission_started_at', type: 'timestamptz', nullable: true })
  submissionStartedAt: Date | null;

  @Column({ name: 'submission_answered_at', type: 'timestamptz', nullable: true })
  submissionAnsweredAt: Date | null;

  @Column({ name: 'poll_count', type: 'integer', default: 0 })
  pollCount: number;

  @Column({ name: 'next_poll_at', type: 'timestamptz', nullable: true })
  nextPollAt: Date | null;

  @Column({ name: 'not_found_streak', type: 'integer', default: 0 })
  notFoundStreak: number;

  @Column({ name: 'provider_seen_at', type: 'timestamptz', nullable: true })
  providerSeenAt: Date | null;

  @Column({ name: 'last_checked_at', type: 'timestamptz', nullable: true })
  lastCheckedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'paid_at', type: 'timestamptz', nullable: true })
  paidAt: Date | null;

  @Column({ name: 'failed_at', type: 'timestamptz', nullable: true })
  failedAt: Date | null;

  @Column({ name: 'reversed_at', type: 'timestamptz', nullable: true })
  reversedAt: Date | null;

  @Column({ name: 'review_at', type: 'timestamptz', nullable: true })
  reviewAt: Date | null;
}
