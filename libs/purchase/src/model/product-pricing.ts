import {
  AmountNotOnStepError,
  AmountOutOfRangeError,
  BudgetTooSmallError,
  DecimalAmount,
  InvalidAmountError,
  minorUnitsFromCents,
  parseDecimalAmount,
  priceRangedBudget,
  priceRangedDestinationAmount,
  vendorPriceCents,
  type Cents,
  type RangedBudgetPrice,
  type RangedProductPricing,
} from '#money';
import { ValidationFailedError } from '#common';
import type { PricingKind } from './catalogue-types.js';
import { BudgetInsufficientError, DestinationAmountInvalidError } from './purchase-errors.js';

/** The wholesale terms of one product as a pricing version froze them. */
export interface PricingTerms {
  pricingKind: PricingKind;
  marginBps: number;
  destinationAmount: string | null;
  rangeMin: string | null;
  rangeMax: string | null;
  rangeStep: string | null;
  /** Fixed: exact ZAR cents we pay the provider. */
  wholesaleCents: Cents | null;
  /** Ranged: ZAR per destination unit. */
  wholesaleRate: string | null;
}

/** Fixed product wholesale from the provider's decimal ZAR string ("9.65"); more than 2 places is refused. */
export function wholesaleCentsOfFixedPrice(wholesalePrice: string): Cents {
  return parseDecimalAmount(wholesalePrice, { maxPlaces: 2 });
}

export function rangedPricingOf(terms: PricingTerms): RangedProductPricing {
  return {
    minDestinationAmount: terms.rangeMin!,
    maxDestinationAmount: terms.rangeMax!,
    destinationStep: terms.rangeStep!,
    wholesaleCentsPerDestinationUnit: DecimalAmount.parse(terms.wholesaleRate!).timesInteger(100n).toString(),
  };
}

/** The price a listing shows: the fixed price, or a ranged product's price at its minimum amount. */
export function listedVendorPriceCents(terms: PricingTerms): Cents {
  if (terms.pricingKind === 'fixed') return vendorPriceCents(terms.wholesaleCents!, terms.marginBps);
  return priceRangedDestinationAmount(rangedPricingOf(terms), terms.rangeMin!, terms.marginBps).chargeCents;
}

/**
 * Prices a quote request. Fixed products take no amount; ranged ones take exactly one of an
 * exact destination amount or a budget in ZAR cents (the largest amount the budget buys); only a
 * budget leaves `unusedBudgetCents` above 0.
 */
export function priceAmount(terms: PricingTerms, request: { destinationAmount?: string; budgetCents?: Cents }): RangedBudgetPrice {
  const hasAmount = request.destinationAmount !== undefined;
  const hasBudget = request.budgetCents !== undefined;
  if (terms.pricingKind === 'fixed') {
    if (hasAmount || hasBudget) {
      const fields: Record<string, string[]> = {};
      if (hasAmount) fields.destination_amount = ['must be omitted for a fixed-value product'];
      if (hasBudget) fields.budget_minor = ['must be omitted for a fixed-value product'];
      throw new ValidationFailedError(fields);
    }
    const wholesaleCents = terms.wholesaleCents!;
    return {
      destinationAmount: terms.destinationAmount!,
      wholesaleCents,
      chargeCents: vendorPriceCents(wholesaleCents, terms.marginBps),
      unusedBudgetCents: 0n,
    };
  }
  if (hasAmount === hasBudget) {
    const message = 'a ranged product takes exactly one of destination_amount or budget_minor';
    throw new ValidationFailedError({ destination_amount: [message], budget_minor: [message] });
  }
  const pricing = rangedPricingOf(terms);
  if (hasAmount) {
    try {
      const price = priceRangedDestinationAmount(pricing, request.destinationAmount!, terms.marginBps);
      return { ...price, unusedBudgetCents: 0n };
    } catch (error) {
      if (error instanceof AmountOutOfRangeError || error instanceof AmountNotOnStepError || error instanceof InvalidAmountError) {
        throw new DestinationAmountInvalidError(error.message, { destination_amount: [error.message] });
      }
      throw error;
    }
  }
  try {
    return priceRangedBudget(pricing, request.budgetCents!, terms.marginBps);
  } catch (error) {
    if (error instanceof BudgetTooSmallError) throw new BudgetInsufficientError(minorUnitsFromCents(error.minimumChargeCents));
    throw error;
  }
}
