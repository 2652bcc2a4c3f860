import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Per-vendor spend controls and pause switch; limits stay null until staff set them. */
@Entity('purchase_spend_controls')
export class SpendControlsEntity {
  @PrimaryColumn({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  @Column({ name: 'daily_cap_cents', type: 'bigint', nullable: true })
  dailyCapCents: string | null;

  @Column({ name: 'transaction_max_cents', type: 'bigint', nullable: true })
  transactionMaxCents: string | null;

  @Column({ name: 'velocity_count', type: 'integer', nullable: true })
  velocityCount: number | null;

  @Column({ name: 'velocity_window_seconds', type: 'integer', nullable: true })
  velocityWindowSeconds: number | null;

  @Column({ name: 'paused_at', type: 'timestamptz', nullable: true })
  pausedAt: Date | null;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** The single row holding the platform-wide purchase pause. */
@Entity('purchase_global_controls')
export class GlobalPurchaseControlsEntity {
  @PrimaryColumn({ type: 'boolean' })
  id: boolean;

  @Column({ name: 'paused_at', type: 'timestamptz', nullable: true })
  pausedAt: Date | null;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** ZAR cents of charges admitted for a vendor on one Africa/Johannesburg day. */
@Entity('purchase_daily_allowances')
export class DailyAllowanceEntity {
  @PrimaryColumn({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  @PrimaryColumn({ type: 'date' })
  day: string;

  @Column({ name: 'used_cents', type: 'bigint' })
  usedCents: string;
}
