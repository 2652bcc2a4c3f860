import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('vendors')
export class VendorEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'text' })
  name: string;

  /** Stable, URL-safe name; the voucher provider receives it as `vendor_slug`. */
  @Column({ type: 'text', unique: true })
  slug: string;

  /** Vendor-level switches: a token's abilities count only while also enabled here. */
  @Column({ name: 'enabled_abilities', type: 'text', array: true, default: () => "'{}'" })
  enabledAbilities: string[];

  /** Account acceptance for production; money movements are refused in production until set. */
  @Column({ name: 'production_released_at', type: 'timestamptz', nullable: true })
  productionReleasedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
