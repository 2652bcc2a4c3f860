import { dateOfBirthProblems, isRealIsoDate, metadataProblems, PAYOUT_AMOUNT_PATTERN, PAYOUT_PHONE_PATTERN, PAYOUT_REFERENCE_PATTERN, recipientIdNumberProblems } from './payout-field-rules.js';

describe('payout field rules', () => {
  it.each([
    ['a', true],
    ['order-1042', true],
    ['a.b:c/d_e-f', true],
    ['A'.repeat(100), true],
    ['A'.repeat(101), false],
    ['-a', false],
    ['.a', false],
    ['a b', false],
    ['a#b', false],
    ['', false],
  ])('reference %j -> %s', (reference, valid) => {
    expect(PAYOUT_REFERENCE_PATTERN.test(reference)).toBe(valid);
  });

  it.each([
    ['0.01', true],
    ['150.00', true],
    ['150', false],
    ['150.0', false],
    ['150.000', false],
    ['015.00', false],
    ['-1.00', false],
    ['1,00', false],
  ])('amount %j -> %s', (amount, valid) => {
    expect(PAYOUT_AMOUNT_PATTERN.test(amount)).toBe(valid);
  });

  it.each([
    ['27821234567', true],
    ['0821234567', false],
    ['2782123456', false],
    ['278212345678', false],
  ])('phone %j -> %s', (phone, valid) => {
    expect(PAYOUT_PHONE_PATTERN.test(phone)).toBe(valid);
  });

  it('checks RSA ID numbers only for RSAID and passport numbers by their own rule', () => {
    expect(recipientIdNumberProblems('RSAID', '8001015009087')).toEqual([]);
    expect(recipientIdNumberProblems('RSAID', '8001015009088')).toHaveLength(1);
    expect(recipientIdNumberProblems('RSAID', '800101500908')).toEqual(['id_number must be 13 digits for id_type RSAID']);
    expect(recipientIdNumberProblems('Passport', 'A12345678')).toEqual([]);
    expect(recipientIdNumberProblems('Passport', '8001015009088')).toEqual([]);
    expect(recipientIdNumberProblems('Passport', 'A1')).toHaveLength(1);
  });

  it('accepts real past dates of birth that agree with the RSA ID number', () => {
    const today = new Date('2026-11-22T00:00:00Z');
    expect(isRealIsoDate('2000-02-29')).toBe(true);
    expect(isRealIsoDate('1900-02-29')).toBe(false);
    expect(dateOfBirthProblems(null, 'RSAID', '8001015009087', today)).toEqual([]);
    expect(dateOfBirthProblems('1980-01-01', 'RSAID', '8001015009087', today)).toEqual([]);
    expect(dateOfBirthProblems('1980-01-02', 'RSAID', '8001015009087', today)[0]).toContain('does not match');
    expect(dateOfBirthProblems('1980-01-02', 'Passport', 'A1234567', today)).toEqual([]);
    expect(dateOfBirthProblems('2026-11-23', 'Passport', 'A1234567', today)[0]).toContain('future');
    expect(dateOfBirthProblems('1980-13-01', 'Passport', 'A1234567', today)[0]).toContain('real date');
  });

  it('accepts flat metadata only', () => {
    expect(metadataProblems(undefined)).toEqual([]);
    expect(metadataProblems({ a: 'x', b: 1, c: true, d: null })).toEqual([]);
    expect(metadataProblems({ a: { b: 1 } })).toHaveLength(1);
    expect(metadataProblems({ a: [1] })).toHaveLength(1);
    expect(metadataProblems([1])).toHaveLength(1);
    expect(metadataProblems({ a: Number.NaN })).toHaveLength(1);
    expect(metadataProblems({ a: 'x'.repeat(501) })).toHaveLength(1);
  });
});
