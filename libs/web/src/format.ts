import { centsFromDbValue, centsFromMinorUnits, formatCents } from '#money';

/** Money as the APIs give it (integer minor units or a DB bigint), formatted by #money: never through a float. */
export function money(minor: number | string | bigint, currency = 'ZAR'): string {
  const cents = typeof minor === 'number' ? centsFromMinorUnits(minor) : centsFromDbValue(minor);
  return `${currency} ${formatCents(cents)}`;
}

const JOHANNESBURG = new Intl.DateTimeFormat('en-ZA', {
  timeZone: 'Africa/Johannesburg',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});

/** Times shown in Johannesburg time, the zone of the vendors' reporting days. */
export function when(value: Date | string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return `${JOHANNESBURG.format(new Date(value))} SAST`;
}
