import { DECIMAL_ROUNDING, ExactDecimal, type RoundingMode } from './exact-decimal.js';
import { CentsOutOfRangeError, InvalidAmountError, InvalidBasisPointsError } from './money.errors.js';
import { parsePlainDecimal } from './plain-decimal.js';

/**
 * ZAR cents (minor units) as a bigint. Postgres `bigint` columns arrive from pg as strings:
 * read them with `centsFromDbValue`; write JSON integers with `minorUnitsFromCents`.
 */
export type Cents = bigint;

/** Largest value a Postgres bigint column holds; amounts beyond it cannot be stored. */
export const MAX_POSTGRES_BIGINT = 9_223_372_036_854_775_807n;
export const MIN_POSTGRES_BIGINT = -9_223_372_036_854_775_808n;

const BASIS_POINTS_PER_UNIT = 10_000;

export interface ParseDecimalAmountOptions {
  /** At most this many decimal places (cents allow two). */
  maxPlaces: 0 | 1 | 2;
  /** At least this many decimal places; defaults to 0. */
  minPlaces?: 0 | 1 | 2;
}

/** Exact cents from an unsigned plain decimal string such as "12.5" or "12.50". */
export function parseDecimalAmount(input: string, options: ParseDecimalAmountOptions): Cents {
  const { integerDigits, fractionDigits } = parsePlainDecimal(input, {
    minPlaces: options.minPlaces ?? 0,
    maxPlaces: options.maxPlaces,
  });
  const cents = BigInt(integerDigits) * 100n + BigInt(fractionDigits.padEnd(2, '0'));
  if (cents > MAX_POSTGRES_BIGINT) {
    throw new InvalidAmountError('amount is too large');
  }
  return cents;
}

/** The payout contract's "decimal string with two places": "12.50" yes, "12.5" and "12" no. */
export function parseZarAmount2dp(input: string): Cents {
  return parseDecimalAmount(input, { minPlaces: 2, maxPlaces: 2 });
}

/** Lenient on places (0 to 2), strict on everything else: "12", "12.5", "12.50". */
export function centsFromDecimalString(input: string): Cents {
  return parseDecimalAmount(input, { maxPlaces: 2 });
}

/**
 * "12.50" from 1250n; negative values (ledger deltas) as "-12.50". The digits of the integer with a
 * point before the last two: exact like any integer, and about fifty times cheaper than a decimal
 * division, which was nearly all of the CPU of a statement export (five amounts a line).
 */
export function formatCents(cents: Cents): string {
  const digits = (cents < 0n ? -cents : cents).toString().padStart(3, '0');
  return `${cents < 0n ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/**
 * Cents from a Postgres bigint as pg returns it (a string), or a bigint/number already read.
 * Signed, because ledger movement columns may hold negative deltas.
 */
export function centsFromDbValue(value: string | bigint | number): Cents {
  let cents: bigint;
  if (typeof value === 'bigint') {
    cents = value;
  } else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new CentsOutOfRangeError('cents must be a safe integer');
    }
    cents = BigInt(value);
  } else if (typeof value === 'string' && /^-?(0|[1-9][0-9]*)$/.test(value) && value !== '-0') {
    cents = BigInt(value);
  } else {
    throw new InvalidAmountError('cents must be an integer');
  }
  if (cents > MAX_POSTGRES_BIGINT || cents < MIN_POSTGRES_BIGINT) {
    throw new CentsOutOfRangeError('cents do not fit a Postgres bigint');
  }
  return cents;
}

/** A read-shape column (readShape of #database) holding cents: the SQL expression and its converter. */
export const centsColumn = (sql: string) => [sql, centsFromDbValue] as const;

/** The same for a nullable cents column. */
export const centsOrNullColumn = (sql: string) => [sql, (raw: string | null): Cents | null => (raw === null ? null : centsFromDbValue(raw))] as const;

/** A read-shape column holding cents that the record carries as JSON-safe minor units (`charge_minor`). */
export const minorUnitsColumn = (sql: string) => [sql, (raw: string) => minorUnitsFromCents(centsFromDbValue(raw))] as const;

/** Cents from a JSON integer such as `budget_minor`; fractions and unsafe integers are refused. */
export function centsFromMinorUnits(value: unknown): Cents {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new InvalidAmountError('minor units must be a safe integer');
  }
  return BigInt(value);
}

/** A JSON-safe integer for fields such as `charge_minor`; refuses what a number cannot hold exactly. */
export function minorUnitsFromCents(cents: Cents): number {
  if (cents > BigInt(Number.MAX_SAFE_INTEGER) || cents < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new CentsOutOfRangeError('cents exceed the JSON safe integer range');
  }
  return Number(cents);
}

function basisPointsAsBigInt(bps: number | bigint): bigint {
  if (typeof bps === 'bigint') return bps;
  if (!Number.isSafeInteger(bps)) {
    throw new InvalidBasisPointsError('basis points must be an integer');
  }
  return BigInt(bps);
}

/**
 * cents × bps / 10 000, rounded as asked; 1 bp = 0.01 %. Exact before the rounding: the product
 * has far fewer than ExactDecimal's 200 digits and a division by 10 000 ends after four places.
 */
export function mulCentsByBasisPoints(cents: Cents, bps: number | bigint, rounding: RoundingMode): Cents {
  const product = new ExactDecimal(cents.toString()).times(basisPointsAsBigInt(bps).toString()).dividedBy(BASIS_POINTS_PER_UNIT);
  return BigInt(product.toDecimalPlaces(0, DECIMAL_ROUNDING[rounding]).toFixed(0));
}

/**
 * Vendor price = wholesale + margin, the margin rounded up to the next cent so the vendor is
 * never charged less than wholesale plus the published margin.
 */
export function vendorPriceCents(wholesaleCents: Cents, marginBps: number | bigint): Cents {
  const margin = basisPointsAsBigInt(marginBps);
  if (margin < 0n) {
    throw new InvalidBasisPointsError('margin must not be negative');
  }
  if (wholesaleCents < 0n) {
    throw new InvalidAmountError('wholesale cost must not be negative');
  }
  return wholesaleCents + mulCentsByBasisPoints(wholesaleCents, margin, 'ceil');
}
