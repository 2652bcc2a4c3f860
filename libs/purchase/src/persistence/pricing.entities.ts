import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { PricingTerms } from './catalogue.entities.js';

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
 * One product's price in a version, with the wholesale terms it was computed from (PricingTerms).
 */
@Entity('purchase_pricing_version_prices')
export class PricingVersionPriceEntity extends PricingTerms {
  @PrimaryColumn({ name: 'pricing_version_id', type: 'integer' })
  pricingVersionId: number;

  @PrimaryColumn({ name: 'product_id', type: 'integer' })
  productId: number;

  @Column({ name: 'margin_bps', type: 'integer' })
  marginBps: number;

  /** pg returns bigint as a string; read it with centsFromDbValue. */
  @Column({ name: 'wholesale_cents', type: 'bigint', nullable: true })
  wholesaleCents: string | null;

  /** Fixed: the price. Ranged: the price at the minimum amount (what listings show). */
  @Column({ name: 'vendor_price_cents', type: 'bigint' })
  vendorPriceCents: string;
}
