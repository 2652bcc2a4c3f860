import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type DeliveryReadChannel = 'delivery_endpoint' | 'payout_response' | 'batch_response';

/** Audit row: which token saw which payout's PIN and serial, when, and through which response. */
@Entity('payout_delivery_reads')
export class PayoutDeliveryReadEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  @Column({ name: 'payout_id', type: 'uuid' })
  payoutId: string;

  @Column({ name: 'token_id', type: 'uuid' })
  tokenId: string;

  @Column({ type: 'text' })
  channel: DeliveryReadChannel;

  @Column({ name: 'read_at', type: 'timestamptz', default: () => 'now()' })
  readAt: Date;
}
