import { MAX_DECIMAL_INPUT_LENGTH } from './exact-decimal.js';
import { InvalidAmountError } from './money.errors.js';

export interface PlainDecimalParts {
  /** Digits before the point, no leading zeros unless the value is "0". */
  integerDigits: string;
  /** Digits after the point exactly as given (may be empty). */
  fractionDigits: string;
}

export interface PlainDecimalRule {
  minPlaces: number;
  maxPlaces: number;
}

/**
 * The one gate every decimal string passes: unsigned, no exponent, no whitespace, no "1." or
 * ".5", no leading zeros ("0.50" is fine, "00.50" and "012" are not).
 */
export function parsePlainDecimal(input: unknown, rule: PlainDecimalRule): PlainDecimalParts {
  if (typeof input !== 'string') {
    throw new InvalidAmountError('amount must be a decimal string');
  }
  if (input.length === 0 || input.length > MAX_DECIMAL_INPUT_LENGTH) {
    throw new InvalidAmountError(`amount must be 1 to ${MAX_DECIMAL_INPUT_LENGTH} characters`);
  }
  const match = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/.exec(input);
  if (!match) {
    throw new InvalidAmountError('amount must be a plain unsigned decimal such as "12.50"');
  }
  const integerDigits = match[1];
  const fractionDigits = match[2] ?? '';
  if (fractionDigits.length < rule.minPlaces || fractionDigits.length > rule.maxPlaces) {
    const expected =
      rule.minPlaces === rule.maxPlaces
        ? `exactly ${rule.maxPlaces}`
        : `${rule.minPlaces} to ${rule.maxPlaces}`;
    throw new InvalidAmountError(`amount must have ${expected} decimal places`);
  }
  return { integerDigits, fractionDigits };
}
