import { DomainError } from '#common';
import { listedVendorPriceCents, priceAmount, type PricingTerms } from './product-pricing.js';

const fixed: PricingTerms = {
  pricingKind: 'fixed',
  marginBps: 500,
  destinationAmount: '10.00',
  rangeMin: null,
  rangeMax: null,
  rangeStep: null,
  wholesaleCents: 965n,
  wholesaleRate: null,
};

const ranged: PricingTerms = {
  pricingKind: 'ranged',
  marginBps: 500,
  destinationAmount: null,
  rangeMin: '5.00',
  rangeMax: '1000.00',
  rangeStep: '1.00',
  wholesaleCents: null,
  wholesaleRate: '0.965',
};

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return (error as DomainError).code;
  }
  return undefined;
}

describe('priceAmount', () => {
  it('prices a fixed product as wholesale plus margin rounded up', () => {
    // 965 × 5 % = 48.25 → 49 cents margin.
    expect(priceAmount(fixed, {})).toEqual({ destinationAmount: '10.00', wholesaleCents: 965n, chargeCents: 1014n, unusedBudgetCents: 0n });
    expect(listedVendorPriceCents(fixed)).toBe(1014n);
  });

  it('refuses an amount or budget on a fixed product', () => {
    expect(codeOf(() => priceAmount(fixed, { destinationAmount: '10.00' }))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => priceAmount(fixed, { budgetCents: 2000n }))).toBe('VALIDATION_FAILED');
  });

  it('prices an exact ranged destination amount', () => {
    // 25 × 96.5 = 2412.5 → 2413 wholesale; margin 120.65 → 121.
    expect(priceAmount(ranged, { destinationAmount: '25.00' })).toEqual({
      destinationAmount: '25.00',
      wholesaleCents: 2413n,
      chargeCents: 2534n,
      unusedBudgetCents: 0n,
    });
  });

  it('buys the largest amount a budget covers and reports what is left', () => {
    const price = priceAmount(ranged, { budgetCents: 2600n });
    expect(price.chargeCents <= 2600n).toBe(true);
    expect(price.unusedBudgetCents).toBe(2600n - price.chargeCents);
    const oneStepMore = priceAmount(ranged, { destinationAmount: (Number(price.destinationAmount) + 1).toFixed(2) });
    expect(oneStepMore.chargeCents > 2600n).toBe(true);
  });

  it.each([
    ['below the minimum', '4.00'],
    ['above the maximum', '1001.00'],
    ['off the step', '5.50'],
  ])('answers DESTINATION_AMOUNT_INVALID for an amount %s', (_label, amount) => {
    expect(codeOf(() => priceAmount(ranged, { destinationAmount: amount }))).toBe('DESTINATION_AMOUNT_INVALID');
  });

  it('answers BUDGET_INSUFFICIENT when the budget cannot buy the minimum', () => {
    expect(codeOf(() => priceAmount(ranged, { budgetCents: 100n }))).toBe('BUDGET_INSUFFICIENT');
  });

  it('needs exactly one of amount and budget on a ranged product', () => {
    expect(codeOf(() => priceAmount(ranged, {}))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => priceAmount(ranged, { destinationAmount: '5.00', budgetCents: 1000n }))).toBe('VALIDATION_FAILED');
  });
});
