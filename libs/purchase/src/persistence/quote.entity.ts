import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { IdentifierGroups, ProductBenefit } from '../model/catalogue-types.js';

/** An immutable price promise for five minutes; `used_at` is the only column that ever changes. */
@Entity('purchase_quotes')
export class QuoteEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'vendor_id', type: 'uuid' })
  vendorId: string;

  @Column({ name: 'product_id', type: 'integer' })
  productId: number;

  @Column({ name: 'pricing_version_id', type: 'integer' })
  pricingVersionId: number;

  @Column({ name: 'charge_cents', type: 'bigint' })
  chargeCents: string;

  @Column({ name: 'wholesale_cents', type: 'bigint' })
  wholesaleCents: string;

  @Column({ type: 'text' })
  currency: string;

  @Column({ name: 'destination_amount', type: 'text' })
  destinationAmount: string;

  @Column({ name: 'destination_unit', type: 'text' })
  destinationUnit: string;

  @Column({ type: 'jsonb' })
  benefits: ProductBenefit[];

  @Column({ name: 'budget_cents', type: 'bigint', nullable: true })
  budgetCents: string | null;

  @Column({ name: 'unused_budget_cents', type: 'bigint' })
  unusedBudgetCents: string;

  /** The recipient fields the purchase will be submitted with. */
  @Column({ type: 'jsonb' })
  identifiers: IdentifierGroups;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;
}
