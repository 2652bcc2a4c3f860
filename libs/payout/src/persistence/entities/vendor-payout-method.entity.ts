import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A vendor's switch, fee and optional tightened limits for one method; no row means disabled. */
@Entity('payout_vendor_methods')
export class VendorPayoutMethodEntity {
  @PrimaryColumn({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  @PrimaryColumn({ type: 'text' })
  method: string;

  @Column({ type: 'boolean', default: false })
  enabled: boolean;

  /** Explicit per-method fee; null falls back to zero (vouchers) or the account's fee_per_payout. */
  @Column({ name: 'fee_cents', type: 'bigint', nullable: true })
  feeCents: string | null;

  @Column({ name: 'minimum_cents', type: 'bigint', nullable: true })
  minimumCents: string | null;

  @Column({ name: 'maximum_cents', type: 'bigint', nullable: true })
  maximumCents: string | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
