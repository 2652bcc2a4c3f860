import { minorUnitsFromCents, type Cents } from '#money';
import type { FulfilmentKind, PricingKind, ProductBenefit, ProductRequirements } from './catalogue-types.js';

export interface ServiceView {
  id: number;
  name: string;
}

export interface CountryView {
  iso_code: string;
  name: string;
  currency: string | null;
}

export interface OperatorView {
  id: number;
  name: string;
  country_iso_code: string;
}

export interface ProductPriceView {
  /** ZAR cents the vendor is charged (ranged products: at the minimum amount). */
  charge_minor: number;
  currency: 'ZAR';
  pricing_version_id: number;
  /** The destination amount this price buys; for ranged products the minimum. */
  destination_amount: string;
}

export function productPriceOf(pricingVersionId: number, cents: Cents, destinationAmount: string): ProductPriceView {
  return { charge_minor: minorUnitsFromCents(cents), currency: 'ZAR', pricing_version_id: pricingVersionId, destination_amount: destinationAmount };
}

export interface ProductView {
  id: number;
  name: string;
  description: string;
  type: PricingKind;
  provider_type: string;
  service: ServiceView;
  operator: { id: number; name: string };
  country_iso_code: string;
  fulfilment: FulfilmentKind;
  destination_currency: string;
  destination_amount: string | null;
  destination_range: { min: string; max: string; step: string } | null;
  /** Null when the current pricing version does not price the product (it cannot be quoted). */
  price: ProductPriceView | null;
  benefits: ProductBenefit[];
  requirements: ProductRequirements;
  lookups: string[];
}

export interface Page<T> {
  items: T[];
  page: number;
  total: number;
  last_page: number;
}

export function pageOf<T>(items: T[], page: number, perPage: number, total: number): Page<T> {
  return { items, page, total, last_page: Math.max(1, Math.ceil(total / perPage)) };
}

/** A product's name and its operator's, what pages show instead of ids. */
export interface ProductLabel {
  name: string;
  operator: string;
}
