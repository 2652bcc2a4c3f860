import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A provider callback we accepted. It is only a hint: it schedules a verification lookup and
 * never changes a status. Kept durably so a late reversal can be checked after the watch ended.
 */
@Entity('purchase_callback_markers')
export class CallbackMarkerEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'transaction_id', type: 'uuid' })
  transactionId: string;

  /** What the callback claimed, for support only; never acted upon. */
  @Column({ name: 'provider_status_hint', type: 'text', nullable: true })
  providerStatusHint: string | null;

  @Column({ name: 'received_at', type: 'timestamptz' })
  receivedAt: Date;

  @Column({ name: 'processed_at', type: 'timestamptz', nullable: true })
  processedAt: Date | null;
}
