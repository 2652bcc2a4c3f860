import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { FulfilmentKind, PricingKind, ProductBenefit, ProductRequirements } from '../model/catalogue-types.js';

/** The provider's service kinds (airtime, data, PIN, eSIM, bill payment), ids as the provider gives them. */
@Entity('purchase_services')
export class PurchaseServiceEntity {
  @PrimaryColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'synced_at', type: 'timestamptz' })
  syncedAt: Date;
}

@Entity('purchase_countries')
export class PurchaseCountryEntity {
  /** ISO 3166 alpha-3. */
  @PrimaryColumn({ name: 'iso_code', type: 'char', length: 3 })
  isoCode: string;

  @Column({ type: 'text' })
  name: string;

  /** Null when the provider lists an operator's country without a country record. */
  @Column({ type: 'text', nullable: true })
  currency: string | null;

  @Column({ name: 'synced_at', type: 'timestamptz' })
  syncedAt: Date;
}

@Entity('purchase_operators')
export class PurchaseOperatorEntity {
  @PrimaryColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'country_iso_code', type: 'char', length: 3 })
  countryIsoCode: string;

  @Column({ name: 'mobile_prefixes', type: 'text', array: true })
  mobilePrefixes: string[];

  @Column({ name: 'synced_at', type: 'timestamptz' })
  syncedAt: Date;
}

/**
 * The pricing terms a product carries and a pricing version copies for it (PricingVersionPriceEntity),
 * so a quote pinned to the version prices the same after a later catalogue sync. Not a table:
 * both entities extend it and map these columns under the same names.
 */
export abstract class PricingTerms {
  @Column({ name: 'pricing_kind', type: 'text' })
  pricingKind: PricingKind;

  /** Fixed products: the destination amount. */
  @Column({ name: 'destination_amount', type: 'text', nullable: true })
  destinationAmount: string | null;

  @Column({ name: 'range_min', type: 'text', nullable: true })
  rangeMin: string | null;

  @Column({ name: 'range_max', type: 'text', nullable: true })
  rangeMax: string | null;

  @Column({ name: 'range_step', type: 'text', nullable: true })
  rangeStep: string | null;

  /** Ranged products: ZAR per destination unit. */
  @Column({ name: 'wholesale_rate', type: 'text', nullable: true })
  wholesaleRate: string | null;
}

/** A provider product as last synced. Wholesale terms stay inside the service. */
@Entity('purchase_products')
export class PurchaseProductEntity extends PricingTerms {
  @PrimaryColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ name: 'provider_type', type: 'text' })
  providerType: string;

  @Column({ name: 'service_id', type: 'integer' })
  serviceId: number;

  @Column({ name: 'operator_id', type: 'integer' })
  operatorId: number;

  @Column({ name: 'country_iso_code', type: 'char', length: 3 })
  countryIsoCode: string;

  @Column({ name: 'destination_currency', type: 'text' })
  destinationCurrency: string;

  /** Fixed products: exact decimal ZAR the provider charges. */
  @Column({ name: 'wholesale_price', type: 'text', nullable: true })
  wholesalePrice: string | null;

  @Column({ type: 'jsonb' })
  benefits: ProductBenefit[];

  @Column({ type: 'text' })
  fulfilment: FulfilmentKind;

  @Column({ name: 'supported_lookups', type: 'text', array: true })
  supportedLookups: string[];

  @Column({ type: 'jsonb' })
  requirements: ProductRequirements;

  /** False once the provider stopped listing it; it can no longer be quoted. */
  @Column({ type: 'boolean' })
  active: boolean;

  @Column({ name: 'synced_at', type: 'timestamptz' })
  syncedAt: Date;
}
