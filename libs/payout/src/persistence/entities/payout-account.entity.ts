import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** One per vendor; the balances always equal the sums of the vendor's ledger entries. */
@Entity('payout_accounts')
export class PayoutAccountEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'vendor_id', type: 'uuid', unique: true })
  vendorId: string;

  @Column({ name: 'available_cents', type: 'bigint', default: 0 })
  availableCents: string;

  @Column({ name: 'reserved_cents', type: 'bigint', default: 0 })
  reservedCents: string;

  @Column({ name: 'fee_per_payout_cents', type: 'bigint', default: 0 })
  feePerPayoutCents: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
