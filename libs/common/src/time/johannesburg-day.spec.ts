import fc from 'fast-check';
import { johannesburgDayOf, johannesburgDayRange, parseIsoDay } from './johannesburg-day.js';
import { InvalidDateError, InvalidIsoDayError } from './time.errors.js';

const instant = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T00:00:00Z'), noInvalidDate: true });

describe('johannesburgDayOf', () => {
  it.each([
    ['2026-03-01T21:59:59.999Z', '2026-03-01'],
    ['2026-03-01T22:00:00.000Z', '2026-03-02'],
    ['2026-12-31T22:00:00.000Z', '2027-01-01'],
    ['2024-02-28T23:30:00.000Z', '2024-02-29'],
    ['2026-07-15T10:00:00.000Z', '2026-07-15'],
  ])('puts %s on %s', (iso, expected) => {
    expect(johannesburgDayOf(new Date(iso))).toBe(expected);
  });

  it('agrees with the Intl time zone database', () => {
    const formatter = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Johannesburg', year: 'numeric', month: '2-digit', day: '2-digit' });
    fc.assert(fc.property(instant, (date) => johannesburgDayOf(date) === formatter.format(date)));
  });

  it('refuses an invalid Date', () => {
    expect(() => johannesburgDayOf(new Date('nonsense'))).toThrow(InvalidDateError);
  });
});

describe('johannesburgDayRange', () => {
  it('starts at 22:00 UTC the day before and lasts 24 hours', () => {
    expect(johannesburgDayRange('2026-03-02')).toEqual({
      start: new Date('2026-03-01T22:00:00.000Z'),
      endExclusive: new Date('2026-03-02T22:00:00.000Z'),
    });
    expect(johannesburgDayRange('2027-01-01').start).toEqual(new Date('2026-12-31T22:00:00.000Z'));
  });

  it('contains every instant of its day, and each day ends where the next starts', () => {
    fc.assert(
      fc.property(instant, (date) => {
        const day = johannesburgDayOf(date);
        const { start, endExclusive } = johannesburgDayRange(day);
        expect(start.getTime()).toBeLessThanOrEqual(date.getTime());
        expect(date.getTime()).toBeLessThan(endExclusive.getTime());
        expect(johannesburgDayOf(start)).toBe(day);
        expect(johannesburgDayOf(new Date(endExclusive.getTime() - 1))).toBe(day);
        expect(johannesburgDayRange(johannesburgDayOf(endExclusive)).start).toEqual(endExclusive);
      }),
    );
  });

  it('refuses a day that does not exist', () => {
    expect(() => johannesburgDayRange('2026-02-30')).toThrow(InvalidIsoDayError);
  });
});

describe('parseIsoDay', () => {
  it.each(['2026-02-28', '2024-02-29', '2000-02-29', '2026-12-31', '2026-04-30'])('accepts %s', (day) => {
    expect(parseIsoDay(day)).toBe(day);
  });

  it.each([
    '2026-02-30', '2026-02-29', '1900-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '2026-1-05',
    '26-01-05', ' 2026-01-05', '2026-01-05 ', '2026-01-05T00:00:00Z', '2026/01/05', '', '0999-01-01', '+02026-01-05',
  ])('rejects %j', (day) => {
    expect(() => parseIsoDay(day)).toThrow(InvalidIsoDayError);
  });

  it('accepts exactly the days a calendar has', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), (year, month, day) => {
        const text = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
        // Oracle: Date.UTC rolls an impossible day into the next month.
        const probe = new Date(Date.UTC(year, month - 1, day));
        const real = probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
        if (real) expect(parseIsoDay(text)).toBe(text);
        else expect(() => parseIsoDay(text)).toThrow(InvalidIsoDayError);
      }),
    );
  });

  it('carries a stable code', () => {
    expect(() => parseIsoDay('2026-02-30')).toThrow(expect.objectContaining({ code: 'INVALID_ISO_DAY' }));
  });
});
