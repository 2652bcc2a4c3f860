import { centsFromDbValue, minorUnitsFromCents } from '#money';
import type { ProductBenefit } from './catalogue-types.js';
import type { QuoteEntity } from '../persistence/quote.entity.js';

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

export function quoteViewOf(quote: QuoteEntity): QuoteView {
  return {
    id: quote.id,
    product_id: quote.productId,
    pricing_version_id: quote.pricingVersionId,
    charge_minor: minorUnitsFromCents(centsFromDbValue(quote.chargeCents)),
    currency: quote.currency,
    destination_amount: quote.destinationAmount,
    destination_unit: quote.destinationUnit,
    benefits: quote.benefits,
    unused_budget_minor: minorUnitsFromCents(centsFromDbValue(quote.unusedBudgetCents)),
    expires_at: quote.expiresAt.toISOString(),
  };
}
