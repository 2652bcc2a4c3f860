import { DECIMAL_ROUNDING, ExactDecimal, type RoundingMode } from './exact-decimal.js';
import { InvalidAmountError, InvalidStepError, PrecisionLossError } from './money.errors.js';
import { parsePlainDecimal } from './plain-decimal.js';

export interface DecimalAmountParseOptions {
  /** At most this many decimal places; defaults to DEFAULT_MAX_DECIMAL_PLACES. */
  maxPlaces?: number;
  /** At least this many decimal places; defaults to 0. */
  minPlaces?: number;
}

export const DEFAULT_MAX_DECIMAL_PLACES = 18;

/**
 * An exact, non-negative decimal for values that are not ZAR cents: destination amounts in a
 * foreign currency ("12.345"), steps ("0.01") and exchange rates. Immutable.
 */
export class DecimalAmount {
  private constructor(private readonly value: ExactDecimal) {}

  static readonly ZERO = new DecimalAmount(new ExactDecimal(0));

  /** Accepts only plain unsigned decimals: no exponent, sign, whitespace, "1." or ".5". */
  static parse(input: string, options: DecimalAmountParseOptions = {}): DecimalAmount {
    const { integerDigits, fractionDigits } = parsePlainDecimal(input, {
      minPlaces: options.minPlaces ?? 0,
      maxPlaces: options.maxPlaces ?? DEFAULT_MAX_DECIMAL_PLACES,
    });
    const text = fractionDigits.length > 0 ? `${integerDigits}.${fractionDigits}` : integerDigits;
    return new DecimalAmount(new ExactDecimal(text));
  }

  static fromInteger(value: bigint): DecimalAmount {
    if (value < 0n) throw new InvalidAmountError('amount must not be negative');
    return new DecimalAmount(new ExactDecimal(value.toString()));
  }

  /** Number of digits after the point once trailing zeros are dropped ("12.50" → 1). */
  get decimalPlaces(): number {
    return this.value.decimalPlaces();
  }

  isZero(): boolean {
    return this.value.isZero();
  }

  compare(other: DecimalAmount): -1 | 0 | 1 {
    return this.value.comparedTo(other.value) as -1 | 0 | 1;
  }

  equals(other: DecimalAmount): boolean {
    return this.value.equals(other.value);
  }

  plus(other: DecimalAmount): DecimalAmount {
    return new DecimalAmount(this.value.plus(other.value));
  }

  /** Refuses to go below zero: a negative destination amount is always a bug upstream. */
  minus(other: DecimalAmount): DecimalAmount {
    const difference = this.value.minus(other.value);
    if (difference.isNegative() && !difference.isZero()) {
      throw new InvalidAmountError('amount must not become negative');
    }
    return new DecimalAmount(difference.abs());
  }

  /** Exact product, for example destination amount × rate. */
  times(multiplier: DecimalAmount): DecimalAmount {
    return new DecimalAmount(this.value.times(multiplier.value));
  }

  timesInteger(multiplier: bigint): DecimalAmount {
    return this.times(DecimalAmount.fromInteger(multiplier));
  }

  /** How many whole steps fit in this amount (truncated). */
  wholeStepsOf(step: DecimalAmount): bigint {
    assertPositiveStep(step);
    return BigInt(this.value.dividedToIntegerBy(step.value).toFixed(0));
  }

  isMultipleOf(step: DecimalAmount): boolean {
    assertPositiveStep(step);
    return this.value.modulo(step.value).isZero();
  }

  floorToStep(step: DecimalAmount): DecimalAmount {
    return step.timesInteger(this.wholeStepsOf(step));
  }

  ceilToStep(step: DecimalAmount): DecimalAmount {
    const floored = this.floorToStep(step);
    return floored.equals(this) ? floored : floored.plus(step);
  }

  /** Rounds to a whole number, for example a cents value to charge. */
  roundToInteger(mode: RoundingMode): bigint {
    return BigInt(this.value.toDecimalPlaces(0, DECIMAL_ROUNDING[mode]).toFixed(0));
  }

  /**
   * Fixed-point string with `places` decimals. Without a rounding mode, refuses to drop
   * digits: formatting 1.005 with two places is a bug, not a rounding choice.
   */
  toFixed(places: number, rounding?: RoundingMode): string {
    if (!Number.isInteger(places) || places < 0) {
      throw new InvalidAmountError('places must be a non-negative integer');
    }
    if (rounding === undefined) {
      if (this.value.decimalPlaces() > places) {
        throw new PrecisionLossError(`${this.toString()} has more than ${places} decimal places`);
      }
      return this.value.toFixed(places);
    }
    return this.value.toFixed(places, DECIMAL_ROUNDING[rounding]);
  }

  /** Shortest plain form ("12.5"); use `toFixed` for a contract format. */
  toString(): string {
    return this.value.toFixed();
  }

  toJSON(): string {
    return this.toString();
  }
}

function assertPositiveStep(step: DecimalAmount): void {
  if (step.isZero()) throw new InvalidStepError('step must be positive');
}
