import fc from 'fast-check';
import {
  MAX_POSTGRES_BIGINT,
  centsFromDbValue,
  centsFromDecimalString,
  centsFromMinorUnits,
  formatCents,
  minorUnitsFromCents,
  mulCentsByBasisPoints,
  parseDecimalAmount,
  parseZarAmount2dp,
  vendorPriceCents,
} from './cents.js';
import { CentsOutOfRangeError, InvalidAmountError, InvalidBasisPointsError } from './money.errors.js';
import { ExactDecimal } from './exact-decimal.js';

const twoPlaceAmount = fc.stringMatching(/^(0|[1-9][0-9]{0,15})\.[0-9]{2}$/);
const storableCents = fc.bigInt({ min: 0n, max: MAX_POSTGRES_BIGINT });

describe('parseZarAmount2dp', () => {
  it.each([
    ['0.00', 0n],
    ['0.01', 1n],
    ['0.50', 50n],
    ['12.50', 1250n],
    ['1000.00', 100000n],
    ['92233720368547758.07', MAX_POSTGRES_BIGINT],
  ])('parses %s as %s cents', (input, expected) => {
    expect(parseZarAmount2dp(input)).toBe(expected);
  });

  it.each([
    '1e3', '1E3', '1.', '.5', '-1.00', '+1.00', ' 1.00', '1.00 ', '1.005', '1.5', '12', '01.00', '00.50',
    '1,00', '1.0.0', '', '0x10', 'NaN', 'Infinity', '１.00', '92233720368547758.08',
  ])('rejects %j', (input) => {
    expect(() => parseZarAmount2dp(input)).toThrow(InvalidAmountError);
  });

  it('rejects non-strings that slip past typing', () => {
    expect(() => parseZarAmount2dp(12.5 as unknown as string)).toThrow(InvalidAmountError);
    expect(() => parseZarAmount2dp(null as unknown as string)).toThrow(InvalidAmountError);
  });

  it('carries a stable code', () => {
    expect(() => parseZarAmount2dp('1e3')).toThrow(expect.objectContaining({ code: 'INVALID_AMOUNT' }));
  });

  it('round trips format(parse(s)) for every two-place string', () => {
    fc.assert(fc.property(twoPlaceAmount, (input) => formatCents(parseZarAmount2dp(input)) === input));
  });

  it('round trips parse(format(c)) for every storable cents value', () => {
    fc.assert(fc.property(storableCents, (cents) => parseZarAmount2dp(formatCents(cents)) === cents));
  });

  it('rejects anything that is not digits, a point and exactly two digits', () => {
    const strict = /^(0|[1-9][0-9]*)\.[0-9]{2}$/;
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('0', '1', '9', '.', '-', '+', 'e', ' ', ',') }).filter((s) => !strict.test(s)),
        (input) => {
          expect(() => parseZarAmount2dp(input)).toThrow(InvalidAmountError);
        },
      ),
    );
  });

  it('rejects a valid amount with anything prepended or appended', () => {
    fc.assert(
      fc.property(twoPlaceAmount, fc.constantFrom(' ', '+', '-', '0', '\n', 'e'), fc.boolean(), (amount, extra, before) => {
        const input = before ? extra + amount : amount + extra;
        expect(() => parseZarAmount2dp(input)).toThrow(InvalidAmountError);
      }),
    );
  });
});

describe('parseDecimalAmount and centsFromDecimalString', () => {
  it('accepts 0 to 2 places leniently but keeps the other rules', () => {
    expect(centsFromDecimalString('12')).toBe(1200n);
    expect(centsFromDecimalString('12.5')).toBe(1250n);
    expect(centsFromDecimalString('12.50')).toBe(1250n);
    expect(centsFromDecimalString('0')).toBe(0n);
    for (const bad of ['1.', '.5', '1.005', '012', '1e3', '-1']) {
      expect(() => centsFromDecimalString(bad)).toThrow(InvalidAmountError);
    }
  });

  it('honours maxPlaces', () => {
    expect(parseDecimalAmount('10', { maxPlaces: 0 })).toBe(1000n);
    expect(() => parseDecimalAmount('10.0', { maxPlaces: 0 })).toThrow(InvalidAmountError);
    expect(parseDecimalAmount('10.1', { maxPlaces: 1 })).toBe(1010n);
    expect(() => parseDecimalAmount('10.10', { maxPlaces: 1 })).toThrow(InvalidAmountError);
  });

  it('agrees with the two-place parser on every two-place string', () => {
    fc.assert(fc.property(twoPlaceAmount, (input) => centsFromDecimalString(input) === parseZarAmount2dp(input)));
  });
});

describe('formatCents', () => {
  it.each([
    [0n, '0.00'],
    [5n, '0.05'],
    [1250n, '12.50'],
    [-1250n, '-12.50'],
    [-5n, '-0.05'],
  ])('formats %s as %s', (cents, expected) => {
    expect(formatCents(cents)).toBe(expected);
  });

  it('writes every integer as the exact decimal division by 100 does, far beyond a float', () => {
    fc.assert(fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), (cents) => formatCents(cents) === new ExactDecimal(cents.toString()).dividedBy(100).toFixed(2)));
  });
});

describe('cents from and to storage and JSON', () => {
  it('reads pg bigint strings, bigints and safe numbers', () => {
    expect(centsFromDbValue('123')).toBe(123n);
    expect(centsFromDbValue('-123')).toBe(-123n);
    expect(centsFromDbValue('9223372036854775807')).toBe(MAX_POSTGRES_BIGINT);
    expect(centsFromDbValue(42n)).toBe(42n);
    expect(centsFromDbValue(42)).toBe(42n);
  });

  it('refuses non-integers and values beyond a Postgres bigint', () => {
    for (const bad of ['1.5', '', ' 1', '01', '-0', '1e3', 'abc']) {
      expect(() => centsFromDbValue(bad)).toThrow(InvalidAmountError);
    }
    expect(() => centsFromDbValue('9223372036854775808')).toThrow(CentsOutOfRangeError);
    expect(() => centsFromDbValue(1.5)).toThrow(CentsOutOfRangeError);
    expect(() => centsFromDbValue(2 ** 53)).toThrow(CentsOutOfRangeError);
  });

  it('round trips through pg strings', () => {
    fc.assert(fc.property(storableCents, (cents) => centsFromDbValue(cents.toString()) === cents));
  });

  it('converts JSON integers both ways and refuses fractions or unsafe values', () => {
    expect(centsFromMinorUnits(1500)).toBe(1500n);
    expect(minorUnitsFromCents(1500n)).toBe(1500);
    for (const bad of [1.5, Number.NaN, 2 ** 53, '15', null]) {
      expect(() => centsFromMinorUnits(bad)).toThrow(InvalidAmountError);
    }
    expect(() => minorUnitsFromCents(BigInt(Number.MAX_SAFE_INTEGER) + 1n)).toThrow(CentsOutOfRangeError);
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => minorUnitsFromCents(centsFromMinorUnits(n)) === n));
  });
});

describe('mulCentsByBasisPoints', () => {
  const cents = fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n });
  const bps = fc.integer({ min: -100_000, max: 100_000 });

  it('rounds as asked on fixed examples', () => {
    expect(mulCentsByBasisPoints(1001n, 250, 'ceil')).toBe(26n); // 25.025
    expect(mulCentsByBasisPoints(1001n, 250, 'floor')).toBe(25n);
    expect(mulCentsByBasisPoints(1001n, 250, 'half-even')).toBe(25n);
    expect(mulCentsByBasisPoints(100n, 250, 'half-even')).toBe(2n); // 2.5 → 2
    expect(mulCentsByBasisPoints(140n, 2500, 'half-even')).toBe(35n);
    expect(mulCentsByBasisPoints(300n, 2500, 'half-even')).toBe(75n);
    expect(mulCentsByBasisPoints(60n, 2500, 'half-even')).toBe(15n);
    expect(mulCentsByBasisPoints(-1001n, 250, 'ceil')).toBe(-25n);
    expect(mulCentsByBasisPoints(-1001n, 250, 'floor')).toBe(-26n);
    expect(() => mulCentsByBasisPoints(100n, 1.5, 'ceil')).toThrow(InvalidBasisPointsError);
  });

  it('ceil is the smallest integer at or above the exact product', () => {
    fc.assert(
      fc.property(cents, bps, (c, b) => {
        const exactTimes10000 = c * BigInt(b);
        const rounded = mulCentsByBasisPoints(c, b, 'ceil');
        return rounded * 10_000n >= exactTimes10000 && (rounded - 1n) * 10_000n < exactTimes10000;
      }),
    );
  });

  it('floor is the largest integer at or below the exact product', () => {
    fc.assert(
      fc.property(cents, bps, (c, b) => {
        const exactTimes10000 = c * BigInt(b);
        const rounded = mulCentsByBasisPoints(c, b, 'floor');
        return rounded * 10_000n <= exactTimes10000 && (rounded + 1n) * 10_000n > exactTimes10000;
      }),
    );
  });

  it('half-even sends exact halves to the even neighbour', () => {
    // 5000 bps of an odd amount is always a tie (x.5), which random inputs rarely hit.
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), (c) => {
        const odd = c * 2n + 1n;
        const rounded = mulCentsByBasisPoints(odd, 5_000, 'half-even');
        return rounded % 2n === 0n && (rounded * 2n - odd === 1n || odd - rounded * 2n === 1n);
      }),
    );
  });

  it('half-even is within half a cent and breaks ties to even', () => {
    fc.assert(
      fc.property(cents, bps, (c, b) => {
        const exactTimes10000 = c * BigInt(b);
        const rounded = mulCentsByBasisPoints(c, b, 'half-even');
        const distance = rounded * 10_000n - exactTimes10000;
        const absoluteDistance = distance < 0n ? -distance : distance;
        if (absoluteDistance > 5_000n) return false;
        return absoluteDistance < 5_000n || rounded % 2n === 0n;
      }),
    );
  });
});

describe('vendorPriceCents', () => {
  it('adds the margin rounded up', () => {
    expect(vendorPriceCents(1000n, 0)).toBe(1000n);
    expect(vendorPriceCents(1000n, 250)).toBe(1025n);
    expect(vendorPriceCents(999n, 250)).toBe(1024n); // 24.975 → 25
    expect(vendorPriceCents(1n, 1)).toBe(2n);
    expect(() => vendorPriceCents(1000n, -1)).toThrow(InvalidBasisPointsError);
    expect(() => vendorPriceCents(-1n, 10)).toThrow(InvalidAmountError);
  });

  it('never undercharges wholesale plus margin, and overcharges by less than a cent', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 100_000 }), (wholesale, margin) => {
        const exactTimes10000 = wholesale * (10_000n + BigInt(margin));
        const price = vendorPriceCents(wholesale, margin);
        return price * 10_000n >= exactTimes10000 && (price - 1n) * 10_000n < exactTimes10000;
      }),
    );
  });
});
