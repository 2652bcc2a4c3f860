import fc from 'fast-check';
import {
  AmountNotOnStepError,
  AmountOutOfRangeError,
  BudgetTooSmallError,
  InvalidAmountError,
  InvalidRangedProductError,
} from './money.errors.js';
import { priceRangedBudget, priceRangedDestinationAmount, type RangedProductPricing } from './ranged-pricing.js';

// Test oracle in plain bigint arithmetic, independent of decimal.js and of the code under test.
function scaledToString(scaled: bigint, places: number): string {
  if (places === 0) return scaled.toString();
  const digits = scaled.toString().padStart(places + 1, '0');
  return `${digits.slice(0, -places)}.${digits.slice(-places)}`;
}
function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}
/** Vendor charge for amountScaled / 10^amountPlaces units at rateScaled / 10^ratePlaces cents each. */
function oracleCharge(amountScaled: bigint, amountPlaces: number, rateScaled: bigint, ratePlaces: number, marginBps: number): bigint {
  const wholesale = ceilDiv(amountScaled * rateScaled, 10n ** BigInt(amountPlaces + ratePlaces));
  return wholesale + ceilDiv(wholesale * BigInt(marginBps), 10_000n);
}

// Nigerian-airtime-like product: NGN 100 to 50 000 in steps of 0.01 at 1.18 ZAR cents per naira.
const naira: RangedProductPricing = {
  minDestinationAmount: '100.00',
  maxDestinationAmount: '50000.00',
  destinationStep: '0.01',
  wholesaleCentsPerDestinationUnit: '1.18',
};

describe('priceRangedDestinationAmount', () => {
  it('charges amount × rate rounded up, plus margin rounded up', () => {
    // 1234.56 × 1.18 = 1456.7808 → 1457 cents; 3% margin 43.71 → 44.
    expect(priceRangedDestinationAmount(naira, '1234.56', 300)).toEqual({
      destinationAmount: '1234.56',
      wholesaleCents: 1457n,
      chargeCents: 1501n,
    });
    expect(priceRangedDestinationAmount(naira, '100', 0)).toEqual({
      destinationAmount: '100.00',
      wholesaleCents: 118n,
      chargeCents: 118n,
    });
  });

  it('refuses amounts outside the range or off the step', () => {
    expect(() => priceRangedDestinationAmount(naira, '99.99', 0)).toThrow(AmountOutOfRangeError);
    expect(() => priceRangedDestinationAmount(naira, '50000.01', 0)).toThrow(AmountOutOfRangeError);
    expect(() => priceRangedDestinationAmount(naira, '100.005', 0)).toThrow(AmountNotOnStepError);
    expect(() => priceRangedDestinationAmount(naira, '1e3', 0)).toThrow(InvalidAmountError);
  });

  it('counts steps from the minimum and caps at the last step under the maximum', () => {
    const product = { minDestinationAmount: '5.5', maxDestinationAmount: '10.2', destinationStep: '1', wholesaleCentsPerDestinationUnit: '100' };
    expect(priceRangedDestinationAmount(product, '6.5', 0).chargeCents).toBe(650n);
    expect(() => priceRangedDestinationAmount(product, '6', 0)).toThrow(AmountNotOnStepError);
    expect(() => priceRangedDestinationAmount(product, '10.2', 0)).toThrow(AmountOutOfRangeError);
    expect(priceRangedDestinationAmount(product, '9.50', 0).destinationAmount).toBe('9.5');
    // Trailing zeros in the catalogue set the response format, whatever the request used.
    expect(priceRangedDestinationAmount({ ...product, minDestinationAmount: '5.50' }, '7.5', 0).destinationAmount).toBe('7.50');
  });

  it('refuses a product it cannot price', () => {
    const broken = (patch: Partial<RangedProductPricing>) => () => priceRangedDestinationAmount({ ...naira, ...patch }, '100.00', 0);
    expect(broken({ destinationStep: '0' })).toThrow(InvalidRangedProductError);
    expect(broken({ wholesaleCentsPerDestinationUnit: '0' })).toThrow(InvalidRangedProductError);
    expect(broken({ maxDestinationAmount: '99' })).toThrow(InvalidRangedProductError);
    expect(broken({ minDestinationAmount: '-1' })).toThrow(InvalidRangedProductError);
  });
});

describe('priceRangedBudget', () => {
  it('buys the largest amount the budget covers', () => {
    // R20.00 budget: 1694.91 × 1.18 = 1999.9938 → 2000 cents; the next step costs 2001.
    expect(priceRangedBudget(naira, 2000n, 0)).toEqual({
      destinationAmount: '1694.91',
      wholesaleCents: 2000n,
      chargeCents: 2000n,
      unusedBudgetCents: 0n,
    });
    const capped = priceRangedBudget(naira, 10n ** 9n, 0);
    expect(capped.destinationAmount).toBe('50000.00');
    expect(capped.unusedBudgetCents).toBe(10n ** 9n - 59000n);
  });

  it('refuses a budget below the minimum charge, saying what the minimum costs', () => {
    expect(() => priceRangedBudget(naira, 117n, 0)).toThrow(BudgetTooSmallError);
    expect(() => priceRangedBudget(naira, 117n, 0)).toThrow(expect.objectContaining({ minimumChargeCents: 118n }));
    expect(() => priceRangedBudget(naira, 0n, 0)).toThrow(InvalidAmountError);
  });

  const productCase = fc
    .record({
      places: fc.integer({ min: 0, max: 3 }),
      minScaled: fc.bigInt({ min: 0n, max: 10n ** 6n }),
      stepScaled: fc.bigInt({ min: 1n, max: 10n ** 4n }),
      stepCount: fc.bigInt({ min: 0n, max: 10n ** 5n }),
      maxOvershoot: fc.bigInt({ min: 0n, max: 10n ** 4n }),
      rateScaled: fc.bigInt({ min: 1n, max: 10n ** 8n }),
      ratePlaces: fc.integer({ min: 0, max: 6 }),
      marginBps: fc.integer({ min: 0, max: 5_000 }),
      budget: fc.bigInt({ min: 1n, max: 10n ** 10n }),
    })
    .map((c) => {
      // The maximum may sit between two steps; the overshoot stays below one step.
      const maxScaled = c.minScaled + c.stepCount * c.stepScaled + (c.maxOvershoot % c.stepScaled);
      const product: RangedProductPricing = {
        minDestinationAmount: scaledToString(c.minScaled, c.places),
        maxDestinationAmount: scaledToString(maxScaled, c.places),
        destinationStep: scaledToString(c.stepScaled, c.places),
        wholesaleCentsPerDestinationUnit: scaledToString(c.rateScaled, c.ratePlaces),
      };
      const chargeAtIndex = (index: bigint) =>
        oracleCharge(c.minScaled + index * c.stepScaled, c.places, c.rateScaled, c.ratePlaces, c.marginBps);
      return { ...c, product, chargeAtIndex };
    });

  it('never exceeds the budget, lands on the grid, and the next step would not fit', () => {
    fc.assert(
      fc.property(productCase, (c) => {
        let result;
        try {
          result = priceRangedBudget(c.product, c.budget, c.marginBps);
        } catch (error) {
          expect(error).toBeInstanceOf(BudgetTooSmallError);
          expect(c.chargeAtIndex(0n)).toBeGreaterThan(c.budget);
          return;
        }
        expect(result.destinationAmount).toBe(scaledToString(BigInt(result.destinationAmount.replace('.', '')), c.places));
        const amountScaled = BigInt(result.destinationAmount.replace('.', ''));
        const index = (amountScaled - c.minScaled) / c.stepScaled;
        expect(c.minScaled + index * c.stepScaled).toBe(amountScaled);
        expect(index).toBeGreaterThanOrEqual(0n);
        expect(index).toBeLessThanOrEqual(c.stepCount);
        expect(result.chargeCents).toBe(c.chargeAtIndex(index));
        expect(result.chargeCents).toBeLessThanOrEqual(c.budget);
        expect(result.unusedBudgetCents).toBe(c.budget - result.chargeCents);
        if (index < c.stepCount) {
          expect(c.chargeAtIndex(index + 1n)).toBeGreaterThan(c.budget);
        }
      }),
    );
  });

  it('agrees with a linear scan on small products', () => {
    fc.assert(
      fc.property(
        productCase.filter((c) => c.stepCount <= 200n),
        (c) => {
          let best: bigint | undefined;
          for (let index = 0n; index <= c.stepCount; index++) {
            if (c.chargeAtIndex(index) <= c.budget) best = index;
          }
          if (best === undefined) {
            expect(() => priceRangedBudget(c.product, c.budget, c.marginBps)).toThrow(BudgetTooSmallError);
            return;
          }
          const result = priceRangedBudget(c.product, c.budget, c.marginBps);
          expect(result.destinationAmount).toBe(scaledToString(c.minScaled + best * c.stepScaled, c.places));
        },
      ),
    );
  });

  it('a quoted budget amount re-prices to the same charge', () => {
    fc.assert(
      fc.property(productCase, (c) => {
        fc.pre(c.chargeAtIndex(0n) <= c.budget);
        const byBudget = priceRangedBudget(c.product, c.budget, c.marginBps);
        const byAmount = priceRangedDestinationAmount(c.product, byBudget.destinationAmount, c.marginBps);
        expect(byAmount.chargeCents).toBe(byBudget.chargeCents);
        expect(byAmount.wholesaleCents).toBe(byBudget.wholesaleCents);
      }),
    );
  });

  it('destination-amount pricing never undercharges wholesale plus margin', () => {
    fc.assert(
      fc.property(productCase, fc.bigInt({ min: 0n, max: 10n ** 5n }), (c, rawIndex) => {
        const index = rawIndex % (c.stepCount + 1n);
        const amountScaled = c.minScaled + index * c.stepScaled;
        const price = priceRangedDestinationAmount(c.product, scaledToString(amountScaled, c.places), c.marginBps);
        // charge ≥ amount × rate × (1 + margin) exactly, compared on a common denominator.
        const denominator = 10n ** BigInt(c.places + c.ratePlaces) * 10_000n;
        expect(price.chargeCents * denominator).toBeGreaterThanOrEqual(amountScaled * c.rateScaled * (10_000n + BigInt(c.marginBps)));
        expect(price.chargeCents).toBe(c.chargeAtIndex(index));
      }),
    );
  });
});
