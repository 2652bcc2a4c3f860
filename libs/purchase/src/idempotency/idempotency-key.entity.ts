import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An accepted POST /transactions, keyed by (vendor, Idempotency-Key). The fingerprint is the
 * request itself (quote and reference): a replay must match both.
 */
@Entity('purchase_idempotency_keys')
export class IdempotencyKeyEntity {
  @PrimaryColumn({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  @PrimaryColumn({ name: 'idempotency_key', type: 'text' })
  idempotencyKey: string;

  @Column({ name: 'quote_id', type: 'uuid' })
  quoteId: string;

  @Column({ type: 'text' })
  reference: string;

  @Column({ name: 'transaction_id', type: 'uuid' })
  transactionId: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
