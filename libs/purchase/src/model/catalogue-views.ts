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

export interface ProductRow {
  id: number;
  name: string;
  description: string;
  pricing_kind: PricingKind;
  provider_type: string;
  service_id: number;
  service_name: string;
  operator_id: number;
  operator_name: string;
  country_iso_code: string;
  fulfilment: FulfilmentKind;
  destination_currency: string;
  destination_amount: string | null;
  range_min: string | null;
  range_max: string | null;
  range_step: string | null;
  benefits: ProductBenefit[];
  requirements: ProductRequirements;
  supported_lookups: string[];
}

export function productViewOf(row: ProductRow, price: { versionId: number; cents: Cents } | null): ProductView {
  const ranged = row.pricing_kind === 'ranged';
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.pricing_kind,
    provider_type: row.provider_type,
    service: { id: row.service_id, name: row.service_name },
    operator: { id: row.operator_id, name: row.operator_name },
    country_iso_code: row.country_iso_code.trim(),
    fulfilment: row.fulfilment,
    destination_currency: row.destination_currency,
    destination_amount: ranged ? null : row.destination_amount,
    destination_range: ranged ? { min: row.range_min!, max: row.range_max!, step: row.range_step! } : null,
    price: price
      ? {
          charge_minor: minorUnitsFromCents(price.cents),
          currency: 'ZAR',
          pricing_version_id: price.versionId,
          destination_amount: ranged ? row.range_min! : row.destination_amount!,
        }
      : null,
    benefits: row.benefits,
    requirements: row.requirements,
    lookups: row.supported_lookups,
  };
}
