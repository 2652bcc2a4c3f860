import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { DecimalAmount } from './decimal-amount.js';
import { InvalidAmountError, InvalidStepError, PrecisionLossError } from './money.errors.js';

/** Test oracle: a decimal string from an integer scaled by 10^places, built without the code under test. */
function scaledToString(scaled: bigint, places: number): string {
  if (places === 0) return scaled.toString();
  const digits = scaled.toString().padStart(places + 1, '0');
  return `${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

const scaledDecimal = fc
  .record({ scaled: fc.bigInt({ min: 0n, max: 10n ** 15n }), places: fc.integer({ min: 0, max: 8 }) })
  .map(({ scaled, places }) => ({ scaled, places, text: scaledToString(scaled, places) }));

describe('DecimalAmount.parse', () => {
  it('accepts plain decimals and prints them canonically', () => {
    expect(DecimalAmount.parse('12.345').toString()).toBe('12.345');
    expect(DecimalAmount.parse('12.50').toString()).toBe('12.5');
    expect(DecimalAmount.parse('0.000001').toString()).toBe('0.000001');
    expect(DecimalAmount.parse('123456789012345678901234567890').toString()).toBe('123456789012345678901234567890');
    expect(DecimalAmount.parse('12.50').decimalPlaces).toBe(1);
  });

  it.each(['1e3', '1.', '.5', '-1.00', ' 1.00', '+1', '01', 'Infinity', 'NaN', '', '1_000', '0x1f'])('rejects %j', (input) => {
    expect(() => DecimalAmount.parse(input)).toThrow(InvalidAmountError);
  });

  it('honours place limits', () => {
    expect(() => DecimalAmount.parse('1.2345', { maxPlaces: 3 })).toThrow(InvalidAmountError);
    expect(() => DecimalAmount.parse('1.2', { minPlaces: 2 })).toThrow(InvalidAmountError);
    expect(DecimalAmount.parse('1.23', { minPlaces: 2, maxPlaces: 2 }).toString()).toBe('1.23');
  });

  it('refuses over-long input rather than risk inexact arithmetic', () => {
    expect(() => DecimalAmount.parse('1'.repeat(41))).toThrow(InvalidAmountError);
  });

  it('leaves the global decimal.js configuration alone', () => {
    DecimalAmount.parse('1.5').times(DecimalAmount.parse('3.3'));
    expect(Decimal.precision).toBe(20);
    expect(Decimal.rounding).toBe(Decimal.ROUND_HALF_UP);
  });
});

describe('DecimalAmount arithmetic', () => {
  it('compares like the scaled integers do', () => {
    fc.assert(
      fc.property(scaledDecimal, scaledDecimal, (a, b) => {
        const commonPlaces = Math.max(a.places, b.places);
        const left = a.scaled * 10n ** BigInt(commonPlaces - a.places);
        const right = b.scaled * 10n ** BigInt(commonPlaces - b.places);
        const expected = left < right ? -1 : left > right ? 1 : 0;
        return DecimalAmount.parse(a.text).compare(DecimalAmount.parse(b.text)) === expected;
      }),
    );
  });

  it('multiplies exactly', () => {
    expect(DecimalAmount.parse('12.345').times(DecimalAmount.parse('0.0123')).toString()).toBe('0.1518435');
    fc.assert(
      fc.property(scaledDecimal, scaledDecimal, (a, b) => {
        const product = DecimalAmount.parse(a.text).times(DecimalAmount.parse(b.text));
        const places = a.places + b.places;
        return product.toFixed(places) === scaledToString(a.scaled * b.scaled, places);
      }),
    );
  });

  it('adds exactly and refuses to go negative', () => {
    expect(DecimalAmount.parse('0.1').plus(DecimalAmount.parse('0.2')).toString()).toBe('0.3');
    expect(DecimalAmount.parse('0.3').minus(DecimalAmount.parse('0.1')).toString()).toBe('0.2');
    expect(DecimalAmount.parse('1').minus(DecimalAmount.parse('1')).isZero()).toBe(true);
    expect(() => DecimalAmount.parse('0.1').minus(DecimalAmount.parse('0.2'))).toThrow(InvalidAmountError);
  });

  it('formats with a fixed number of places, refusing silent precision loss', () => {
    expect(DecimalAmount.parse('12.5').toFixed(2)).toBe('12.50');
    expect(DecimalAmount.parse('12').toFixed(0)).toBe('12');
    expect(() => DecimalAmount.parse('1.005').toFixed(2)).toThrow(PrecisionLossError);
    expect(DecimalAmount.parse('1.005').toFixed(2, 'half-even')).toBe('1.00');
    expect(DecimalAmount.parse('1.015').toFixed(2, 'half-even')).toBe('1.02');
    expect(DecimalAmount.parse('1.001').toFixed(2, 'ceil')).toBe('1.01');
    expect(DecimalAmount.parse('1.009').toFixed(2, 'floor')).toBe('1.00');
  });

  it('rounds to an integer as asked', () => {
    expect(DecimalAmount.parse('10.0001').roundToInteger('ceil')).toBe(11n);
    expect(DecimalAmount.parse('10.9999').roundToInteger('floor')).toBe(10n);
    expect(DecimalAmount.parse('10.5').roundToInteger('half-even')).toBe(10n);
    expect(DecimalAmount.parse('11.5').roundToInteger('half-even')).toBe(12n);
    expect(DecimalAmount.parse('10').roundToInteger('ceil')).toBe(10n);
  });
});

describe('DecimalAmount steps', () => {
  it('floors and ceils to a step', () => {
    const step = DecimalAmount.parse('0.05');
    expect(DecimalAmount.parse('12.37').floorToStep(step).toFixed(2)).toBe('12.35');
    expect(DecimalAmount.parse('12.37').ceilToStep(step).toFixed(2)).toBe('12.40');
    expect(DecimalAmount.parse('12.35').ceilToStep(step).toFixed(2)).toBe('12.35');
    expect(DecimalAmount.parse('12.35').isMultipleOf(step)).toBe(true);
    expect(DecimalAmount.parse('12.37').isMultipleOf(step)).toBe(false);
    expect(DecimalAmount.parse('1').wholeStepsOf(DecimalAmount.parse('0.3'))).toBe(3n);
    expect(() => DecimalAmount.parse('1').floorToStep(DecimalAmount.ZERO)).toThrow(InvalidStepError);
  });

  it('floor and ceil bracket the value within one step, on the step', () => {
    fc.assert(
      fc.property(scaledDecimal, fc.bigInt({ min: 1n, max: 10n ** 6n }), fc.integer({ min: 0, max: 6 }), (a, stepScaled, stepPlaces) => {
        const value = DecimalAmount.parse(a.text);
        const step = DecimalAmount.parse(scaledToString(stepScaled, stepPlaces));
        const floor = value.floorToStep(step);
        const ceil = value.ceilToStep(step);
        expect(floor.isMultipleOf(step)).toBe(true);
        expect(ceil.isMultipleOf(step)).toBe(true);
        expect(floor.compare(value)).toBeLessThanOrEqual(0);
        expect(ceil.compare(value)).toBeGreaterThanOrEqual(0);
        expect(floor.plus(step).compare(value)).toBe(1);
        expect(ceil.compare(value.plus(step))).toBe(-1);
        expect(value.isMultipleOf(step)).toBe(floor.equals(value));
      }),
    );
  });
});
