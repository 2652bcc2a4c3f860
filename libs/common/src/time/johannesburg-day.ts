import { InvalidDateError, InvalidIsoDayError } from './time.errors.js';

/**
 * Africa/Johannesburg (SAST) is UTC+02:00 all year, with no daylight saving since 1944, so a
 * fixed offset is exact and avoids depending on the host's time zone data.
 */
const JOHANNESBURG_OFFSET_MS = 2 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in `month` (1 to 12) of `year` on the Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Returns the day unchanged if it is a real calendar date written as YYYY-MM-DD (2026-02-30 is not). */
export function parseIsoDay(input: string): string {
  const match = typeof input === 'string' ? /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(input) : null;
  if (!match) throw new InvalidIsoDayError(input);
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new InvalidIsoDayError(input);
  }
  return input;
}

/** The Johannesburg calendar day (YYYY-MM-DD) an instant falls on. */
export function johannesburgDayOf(date: Date): string {
  const shifted = new Date(date.getTime() + JOHANNESBURG_OFFSET_MS);
  const year = shifted.getUTCFullYear();
  if (Number.isNaN(shifted.getTime()) || year < 1000 || year > 9999) throw new InvalidDateError();
  return shifted.toISOString().slice(0, 10);
}

/** The instants of one Johannesburg day: [00:00 SAST, next 00:00 SAST), as UTC Dates. */
export function johannesburgDayRange(day: string): { start: Date; endExclusive: Date } {
  const [year, month, dayOfMonth] = parseIsoDay(day).split('-').map(Number);
  const utcMidnight = Date.UTC(year, month - 1, dayOfMonth);
  const start = utcMidnight - JOHANNESBURG_OFFSET_MS;
  return { start: new Date(start), endExclusive: new Date(start + DAY_MS) };
}
