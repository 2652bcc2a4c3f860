import type { ProductBenefit } from './catalogue-types.js';

/** The contract's Quote resource. */
export interface QuoteView {
  id: string;
  product_id: number;
  pricing_version_id: number;
  charge_minor: number;
  currency: string;
  destination_amount: string;
  destination_unit: string;
  benefits: ProductBenefit[];
  unused_budget_minor: number;
  expires_at: string;
}
