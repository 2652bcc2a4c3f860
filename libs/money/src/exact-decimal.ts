import { Decimal } from 'decimal.js';

/**
 * A private Decimal constructor, so nothing here depends on (or changes) the global
 * decimal.js configuration another module might set.
 *
 * Inputs are capped at MAX_DECIMAL_INPUT_LENGTH characters, so a product of a few of them
 * has well under 200 significant digits: additions, subtractions and multiplications stay
 * exact. Rounding only happens where a caller asks for it, with an explicit mode.
 */
export const ExactDecimal = Decimal.clone({
  precision: 200,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -9e15,
  toExpPos: 9e15,
  minE: -9e15,
  maxE: 9e15,
  modulo: Decimal.ROUND_DOWN,
});
export type ExactDecimal = InstanceType<typeof ExactDecimal>;

/** Longest decimal string any parser here accepts; keeps arithmetic exact (see above). */
export const MAX_DECIMAL_INPUT_LENGTH = 40;

/** How to round when a result must land on a coarser grid. `half-even` is banker's rounding. */
export type RoundingMode = 'ceil' | 'floor' | 'half-even';

/** decimal.js's rounding constant for each mode. */
export const DECIMAL_ROUNDING: Record<RoundingMode, Decimal.Rounding> = {
  ceil: Decimal.ROUND_CEIL,
  floor: Decimal.ROUND_FLOOR,
  'half-even': Decimal.ROUND_HALF_EVEN,
};
