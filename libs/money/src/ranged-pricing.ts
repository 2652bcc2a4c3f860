import { vendorPriceCents, type Cents } from './cents.js';
import { DecimalAmount } from './decimal-amount.js';
import {
  AmountNotOnStepError,
  AmountOutOfRangeError,
  BudgetTooSmallError,
  InvalidAmountError,
  InvalidRangedProductError,
  MoneyError,
} from './money.errors.js';

/** A ranged product as the provider catalogue describes it, all decimals as strings. */
export interface RangedProductPricing {
  minDestinationAmount: string;
  maxDestinationAmount: string;
  /** Increment between valid amounts, counted from the minimum (for example "0.01"). */
  destinationStep: string;
  /** Wholesale cost in ZAR cents for one destination unit (for example "1.8234"). */
  wholesaleCentsPerDestinationUnit: string;
}

export interface RangedPrice {
  /** The destination amount with the places the catalogue uses for min and step ("25.50"). */
  destinationAmount: string;
  /** What the provider charges us: amount × rate, rounded up to a cent. */
  wholesaleCents: Cents;
  /** What the vendor pays: wholesale plus margin, the margin rounded up to a cent. */
  chargeCents: Cents;
}

export interface RangedBudgetPrice extends RangedPrice {
  unusedBudgetCents: Cents;
}

interface RangedGrid {
  min: DecimalAmount;
  step: DecimalAmount;
  rate: DecimalAmount;
  /** Index of the last valid amount: valid amounts are min + n × step for n in 0..lastIndex. */
  lastIndex: bigint;
  /** Places to print grid amounts with: the most the catalogue used for min or step. */
  places: number;
}

function parseProductField(value: string, field: string): DecimalAmount {
  try {
    return DecimalAmount.parse(value);
  } catch (error) {
    if (error instanceof MoneyError) {
      throw new InvalidRangedProductError(`${field}: ${error.message}`);
    }
    throw error;
  }
}

function gridOf(product: RangedProductPricing): RangedGrid {
  const min = parseProductField(product.minDestinationAmount, 'minDestinationAmount');
  const max = parseProductField(product.maxDestinationAmount, 'maxDestinationAmount');
  const step = parseProductField(product.destinationStep, 'destinationStep');
  const rate = parseProductField(product.wholesaleCentsPerDestinationUnit, 'wholesaleCentsPerDestinationUnit');
  if (step.isZero()) throw new InvalidRangedProductError('destinationStep must be positive');
  if (rate.isZero()) throw new InvalidRangedProductError('wholesaleCentsPerDestinationUnit must be positive');
  if (max.compare(min) < 0) throw new InvalidRangedProductError('maxDestinationAmount is below the minimum');
  return {
    min,
    step,
    rate,
    lastIndex: max.minus(min).wholeStepsOf(step),
    places: Math.max(declaredPlaces(product.minDestinationAmount), declaredPlaces(product.destinationStep)),
  };
}

/** Places as the catalogue wrote them ("100.00" → 2), so responses keep the product's format. */
function declaredPlaces(validatedDecimal: string): number {
  const point = validatedDecimal.indexOf('.');
  return point === -1 ? 0 : validatedDecimal.length - point - 1;
}

function amountAt(grid: RangedGrid, index: bigint): DecimalAmount {
  return grid.min.plus(grid.step.timesInteger(index));
}

function priceAt(grid: RangedGrid, amount: DecimalAmount, marginBps: number | bigint): RangedPrice {
  const wholesaleCents = wholesaleCentsFor(amount, grid.rate);
  return {
    destinationAmount: amount.toFixed(grid.places),
    wholesaleCents,
    chargeCents: vendorPriceCents(wholesaleCents, marginBps),
  };
}

/** Wholesale cost of a destination amount, rounded up so we never absorb a fraction of a cent. */
export function wholesaleCentsFor(destinationAmount: DecimalAmount, centsPerUnit: DecimalAmount): Cents {
  return destinationAmount.times(centsPerUnit).roundToInteger('ceil');
}

/** Price of an exact destination amount; refuses amounts outside the range or off the step. */
export function priceRangedDestinationAmount(
  product: RangedProductPricing,
  destinationAmount: string,
  marginBps: number | bigint,
): RangedPrice {
  const grid = gridOf(product);
  const amount = DecimalAmount.parse(destinationAmount);
  const lastAmount = amountAt(grid, grid.lastIndex);
  if (amount.compare(grid.min) < 0 || amount.compare(lastAmount) > 0) {
    throw new AmountOutOfRangeError(
      `destination amount must be between ${grid.min.toFixed(grid.places)} and ${lastAmount.toFixed(grid.places)}`,
    );
  }
  if (!amount.minus(grid.min).isMultipleOf(grid.step)) {
    throw new AmountNotOnStepError(`destination amount must be on steps of ${grid.step.toString()} from the minimum`);
  }
  return priceAt(grid, amount, marginBps);
}

/**
 * The largest destination amount on the grid whose charge fits the budget, and what is left.
 * Charge grows with the amount (ceil and margin are monotonic), so a binary search over grid
 * indexes finds the exact maximum without trusting a rounded division.
 */
export function priceRangedBudget(
  product: RangedProductPricing,
  budgetCents: Cents,
  marginBps: number | bigint,
): RangedBudgetPrice {
  if (budgetCents < 1n) throw new InvalidAmountError('budget must be at least 1 cent');
  const grid = gridOf(product);
  const chargeAt = (index: bigint): Cents => priceAt(grid, amountAt(grid, index), marginBps).chargeCents;

  const minimumCharge = chargeAt(0n);
  if (minimumCharge > budgetCents) {
    throw new BudgetTooSmallError(
      `budget does not cover the minimum amount ${grid.min.toFixed(grid.places)}`,
      minimumCharge,
    );
  }
  // Invariant: chargeAt(low) fits; every index above high does not (or is off the range).
  let low = 0n;
  let high = grid.lastIndex;
  while (low < high) {
    const middle = low + (high - low + 1n) / 2n;
    if (chargeAt(middle) <= budgetCents) low = middle;
    else high = middle - 1n;
  }
  const price = priceAt(grid, amountAt(grid, low), marginBps);
  return { ...price, unusedBudgetCents: budgetCents - price.chargeCents };
}
