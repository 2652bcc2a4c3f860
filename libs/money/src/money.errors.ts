/**
 * Money errors carry a stable `code` so each service's exception filter can map them
 * to its own contract code (for example DESTINATION_AMOUNT_INVALID or VALIDATION_FAILED).
 */
export abstract class MoneyError extends Error {
  abstract readonly code: string;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The base of the money errors with code `code`: each one is a named class, so callers can catch it by type. */
function moneyError<const Code extends string>(code: Code) {
  abstract class MoneyErrorWithCode extends MoneyError {
    readonly code = code;
  }
  return MoneyErrorWithCode;
}

/** Input is not an amount we accept: wrong shape, too many places, too large. */
export class InvalidAmountError extends moneyError('INVALID_AMOUNT') {}

/** An operation would silently drop digits (for example formatting 1.005 with two places). */
export class PrecisionLossError extends moneyError('PRECISION_LOSS') {}

/** A cents value does not fit where it has to go (a JS safe integer, a Postgres bigint). */
export class CentsOutOfRangeError extends moneyError('CENTS_OUT_OF_RANGE') {}

/** Basis points must be an integer (and, for margins, not negative). */
export class InvalidBasisPointsError extends moneyError('INVALID_BASIS_POINTS') {}

/** A step (increment) must be strictly positive. */
export class InvalidStepError extends moneyError('INVALID_STEP') {}

/** A ranged product's min, max, step or rate cannot be priced. */
export class InvalidRangedProductError extends moneyError('INVALID_RANGED_PRODUCT') {}

/** Destination amount is outside the product's minimum and maximum. */
export class AmountOutOfRangeError extends moneyError('AMOUNT_OUT_OF_RANGE') {}

/** Destination amount is inside the range but not on the product's step. */
export class AmountNotOnStepError extends moneyError('AMOUNT_NOT_ON_STEP') {}

/** The budget cannot buy even the product's minimum amount. */
export class BudgetTooSmallError extends moneyError('BUDGET_TOO_SMALL') {
  constructor(
    message: string,
    /** What the minimum amount would cost, so callers can tell the vendor. */
    readonly minimumChargeCents: bigint,
  ) {
    super(message);
  }
}
