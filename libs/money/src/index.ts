export {
  MoneyError,
  InvalidAmountError,
  PrecisionLossError,
  CentsOutOfRangeError,
  InvalidBasisPointsError,
  InvalidStepError,
  InvalidRangedProductError,
  AmountOutOfRangeError,
  AmountNotOnStepError,
  BudgetTooSmallError,
} from './money.errors.js';
export type { RoundingMode } from './exact-decimal.js';
export {
  type Cents,
  type ParseDecimalAmountOptions,
  MAX_POSTGRES_BIGINT,
  MIN_POSTGRES_BIGINT,
  parseDecimalAmount,
  parseZarAmount2dp,
  centsFromDecimalString,
  formatCents,
  decimalStringFromCents,
  centsFromDbValue,
  centsFromMinorUnits,
  minorUnitsFromCents,
  addCents,
  subCents,
  sumCents,
  compareCents,
  isMultipleOf,
  mulCentsByBasisPoints,
  vendorPriceCents,
} from './cents.js';
export { DecimalAmount, DEFAULT_MAX_DECIMAL_PLACES, type DecimalAmountParseOptions } from './decimal-amount.js';
export {
  type RangedProductPricing,
  type RangedPrice,
  type RangedBudgetPrice,
  wholesaleCentsFor,
  priceRangedDestinationAmount,
  priceRangedBudget,
} from './ranged-pricing.js';
