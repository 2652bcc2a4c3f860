import fc from 'fast-check';
import { isValidRsaIdNumber, luhnCheck } from './rsa-id-number.js';

/** Test oracle: the Luhn check digit for a payload, computed the textbook way. */
function luhnCheckDigit(payload: string): string {
  const doubledFromRight = [...payload].reverse().map((character, index) => {
    const digit = Number(character);
    if (index % 2 === 1) return digit;
    const doubled = digit * 2;
    return doubled > 9 ? doubled - 9 : doubled;
  });
  const sum = doubledFromRight.reduce((total, digit) => total + digit, 0);
  return String((10 - (sum % 10)) % 10);
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** YYMMDD for any real date 1900-2099 (the Date object decides what is real, not the code under test). */
const birthDate = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
  .map((date) => pad(date.getUTCFullYear() % 100, 2) + pad(date.getUTCMonth() + 1, 2) + pad(date.getUTCDate(), 2));
const digits = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: length, maxLength: length });

const validIdNumber = fc
  .tuple(birthDate, digits(4), fc.constantFrom('0', '1', '2'), digits(1))
  .map(([date, sequence, citizenship, historic]) => {
    const payload = date + sequence + citizenship + historic;
    return payload + luhnCheckDigit(payload);
  });

describe('luhnCheck', () => {
  it.each(['79927398713', '4539578763621486', '0', '18'])('accepts %s', (value) => {
    expect(luhnCheck(value)).toBe(true);
  });

  it.each(['79927398710', '4539578763621487', '1', '', '12a4', ' 18'])('rejects %j', (value) => {
    expect(luhnCheck(value)).toBe(false);
  });
});

describe('isValidRsaIdNumber', () => {
  // Checked by hand: 8001015009087 sums to 40 (doubled 7+9+0+2+2+0, plain 7+0+0+5+0+0+8).
  // 0002290000088 sums to 30; 29 Feb only exists in 2000, not 1900, which is enough.
  it.each(['8001015009087', '0002290000088'])('accepts %s', (value) => {
    expect(isValidRsaIdNumber(value)).toBe(true);
  });

  it.each([
    ['wrong check digit', '8001015009086'],
    ['12 digits', '800101500908'],
    ['14 digits', '80010150090870'],
    ['letters', '80010150090A7'],
    ['spaces', '800101 5009087'],
    ['empty', ''],
  ])('rejects %s', (_reason, value) => {
    expect(isValidRsaIdNumber(value)).toBe(false);
  });

  it('rejects dates that do not exist in either century, even with a valid check digit', () => {
    for (const date of ['800230', '010229', '801301', '800001', '800100', '800431', '991232']) {
      const payload = `${date}500908`;
      expect(isValidRsaIdNumber(payload + luhnCheckDigit(payload))).toBe(false);
    }
  });

  it('rejects citizenship digits other than 0, 1 and 2, even with a valid check digit', () => {
    for (const citizenship of '3456789') {
      const payload = `8001015009${citizenship}8`;
      expect(isValidRsaIdNumber(payload + luhnCheckDigit(payload))).toBe(false);
    }
  });

  it('rejects non-strings that slip past typing', () => {
    expect(isValidRsaIdNumber(8001015009087 as unknown as string)).toBe(false);
  });

  it('accepts every well-formed number with a correct check digit', () => {
    fc.assert(fc.property(validIdNumber, (value) => isValidRsaIdNumber(value)));
  });

  it('rejects any single mistyped digit (Luhn catches every one)', () => {
    fc.assert(
      fc.property(validIdNumber, fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 9 }), (value, position, shift) => {
        const changed = String((Number(value[position]) + shift) % 10);
        const typo = value.slice(0, position) + changed + value.slice(position + 1);
        return !isValidRsaIdNumber(typo);
      }),
    );
  });
});
