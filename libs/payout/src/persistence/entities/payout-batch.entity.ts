import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A batch's own row; its status is derived from its items' statuses on every read. */
@Entity('payout_batches')
export class PayoutBatchEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  @Column({ type: 'text' })
  reference: string;

  @Column({ name: 'request_fingerprint', type: 'char', length: 64 })
  requestFingerprint: string;

  @Column({ name: 'item_count', type: 'integer' })
  itemCount: number;

  @Column({ name: 'total_amount_cents', type: 'bigint' })
  totalAmountCents: string;

  @Column({ name: 'total_fee_cents', type: 'bigint' })
  totalFeeCents: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
