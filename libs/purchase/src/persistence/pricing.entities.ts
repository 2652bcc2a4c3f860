import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { PricingKind } from '../model/catalogue-types.js';

/** An immutable pricing publication (a database trigger refuses updates and deletes). */
@Entity('purchase_pricing_versions')
export class PricingVersionEntity {
  @PrimaryGeneratedColumn('identity', { type: 'integer', generatedIdentity: 'ALWAYS' })
  id: number;

  @Column({ name: 'margin_bps', type: 'integer' })
  marginBps: number;

  @Column({ name: 'product_count', type: 'integer' })
  productCount: number;

  @Column({ name: 'published_at', type: 'timestamptz' })
  publishedAt: Date;
}

/**
 * One product's price in a version, with the wholesale terms it was computed from, so a quote
 * pinned to the version prices exactly the same even after a later catalogue sync.
 */
@Entity('purchase_pricing_version_prices')
export class PricingVersionPriceEntity {
  @PrimaryColumn({ name: 'pricing_version_id', type: 'integer' })
  pricingVersionId: number;

  @PrimaryColumn({ name: 'product_id', type: 'integer' })
  productId: number;

  @Column({ name: 'pricing_kind', type: 'text' })
  pricingKind: PricingKind;

  @Column({ name: 'margin_bps', type: 'integer' })
  marginBps: number;

  @Column({ name: 'destination_amount', type: 'text', nullable: true })
  destinationAmount: string | null;

  @Column({ name: 'range_min', type: 'text', nullable: true })
  rangeMin: string | null;

  @Column({ name: 'range_max', type: 'text', nullable: true })
  rangeMax: string | null;

  @Column({ name: 'range_step', type: 'text', nullable: true })
  rangeStep: string | null;

  /** pg returns bigint as a string; read it with centsFromDbValue. */
  @Column({ name: 'wholesale_cents', type: 'bigint', nullable: true })
  wholesaleCents: string | null;

  @Column({ name: 'wholesale_rate', type: 'text', nullable: true })
  wholesaleRate: string | null;

  /** Fixed: the price. Ranged: the price at the minimum amount (what listings show). */
  @Column({ name: 'vendor_price_cents', type: 'bigint' })
  vendorPriceCents: string;
}
