import type { RoundingMode } from './exact-decimal.js';
import { InvalidStepError } from './money.errors.js';

/** numerator / denominator on bigints, rounded as asked (bigint `/` alone truncates toward zero). */
export function divideRounded(numerator: bigint, denominator: bigint, mode: RoundingMode): bigint {
  if (denominator <= 0n) {
    throw new InvalidStepError('divisor must be positive');
  }
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  if (remainder === 0n) return quotient;
  const awayFromZero = quotient + (numerator < 0n ? -1n : 1n);
  switch (mode) {
    case 'floor':
      return numerator < 0n ? awayFromZero : quotient;
    case 'ceil':
      return numerator > 0n ? awayFromZero : quotient;
    case 'half-even': {
      const twiceRemainder = 2n * (remainder < 0n ? -remainder : remainder);
      if (twiceRemainder > denominator) return awayFromZero;
      if (twiceRemainder < denominator) return quotient;
      return quotient % 2n === 0n ? quotient : awayFromZero;
    }
  }
}
