import { centsFromDbValue, centsFromDecimalString, centsFromMinorUnits, formatCents, type Cents } from '#money';
import { html, type SafeHtml } from './html.js';

/*
 * How both web apps write money and time, in one place so no page invents its own style.
 *
 * Money: the ISO code first, then the amount with a comma between thousands and a point before
 * the cents: "ZAR 98,707.16", "ZAR -12.50". This is how South African banks and invoices write
 * amounts in English, it keeps the API's decimal point (what a vendor types into a form or a CSV),
 * and "ZAR" cannot be mistaken for another rand-named currency on a page that also shows a
 * product's destination currency. Amounts are formatted from integer cents or exact decimal
 * strings, never through a float.
 *
 * Time: Africa/Johannesburg (SAST, UTC+02:00 all year), written year-month-day with a 24-hour
 * clock, "2026-11-27 14:03:05 SAST"; days alone as "2026-11-27", the form the date filters take.
 */

/** "98,707.16" from "98707.16": commas between groups of three digits of the whole part. */
function groupThousands(plain: string): string {
  const negative = plain.startsWith('-');
  const [whole, fraction] = (negative ? plain.slice(1) : plain).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** Cents as the pages show them: "ZAR 98,707.16". */
export function moneyFromCents(cents: Cents, currency = 'ZAR'): string {
  return `${currency} ${groupThousands(formatCents(cents))}`;
}

/** Money as the APIs give it (integer minor units or a DB bigint): "ZAR 98,707.16", never through a float. */
export function money(minor: number | string | bigint, currency = 'ZAR'): string {
  const cents = typeof minor === 'number' ? centsFromMinorUnits(minor) : centsFromDbValue(minor);
  return moneyFromCents(cents, currency);
}

/** Money the API writes as a decimal string ("98707.16", "-5.5"): "ZAR 98,707.16". */
export function moneyFromDecimal(amount: string, currency = 'ZAR'): string {
  const negative = amount.startsWith('-');
  const cents = centsFromDecimalString(negative ? amount.slice(1) : amount);
  return moneyFromCents(negative ? -cents : cents, currency);
}

const JOHANNESBURG = new Intl.DateTimeFormat('en-ZA', {
  timeZone: 'Africa/Johannesburg',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

function johannesburgParts(value: Date | string): Record<string, string> {
  return Object.fromEntries(JOHANNESBURG.formatToParts(new Date(value)).map((part) => [part.type, part.value]));
}

/** A moment in Johannesburg time, "2026-11-27 14:03:05 SAST"; a dash when there is none. */
export function when(value: Date | string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const part = johannesburgParts(value);
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second} SAST`;
}

/** The Johannesburg day of a moment, "2026-11-27"; a dash when there is none. */
export function dayOf(value: Date | string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const part = johannesburgParts(value);
  return `${part.year}-${part.month}-${part.day}`;
}

/**
 * What a purchase delivers, as the API gives it: an amount in a currency written like money
 * ("ZAR 10.00", the currency first as everywhere), any other unit after the amount ("500 MB").
 */
export function quantity(amount: string, unit: string): string {
  if (/^[A-Z]{3}$/.test(unit) && /^-?\d+(\.\d{1,2})?$/.test(amount)) return moneyFromDecimal(amount, unit);
  return `${amount} ${unit}`;
}

/** A payout method's range with its currency: "ZAR 5.00 to ZAR 50,000.00". */
export function moneyRange(minimumCents: Cents, maximumCents: Cents, currency = 'ZAR'): string {
  return `${moneyFromCents(minimumCents, currency)} to ${moneyFromCents(maximumCents, currency)}`;
}

/** Amounts in cents, by their key (`amount_cents`, `feeCents`, `daily_cap_minor`): shown as money. */
const MONEY_KEY = /(Cents|_cents|_minor)$/;
/** Amounts the payout API writes as decimal strings (`amount`, `fee`, `total_amount`): shown as money when they look like one. */
const DECIMAL_MONEY_KEY = /(^|_)(amount|fee)$|[a-z](Amount|Fee)$/;
const DECIMAL_AMOUNT = /^-?\d+(\.\d{1,2})?$/;
/** An instant as the database and the APIs write it (UTC ISO 8601): shown in Johannesburg time. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Keys whose values are ids (`product_id`, `enabled_product_ids`, `productIds`, `user`, and the
 * `requested` product list of a products change): shown by name when the page knows it.
 */
const ID_KEY = /(^|_)(id|ids|products?|users?|vendor|requested)$|[a-z](Id|Ids)$/;

/** "daily_cap_minor" → "daily cap", "feeCents" → "fee", "velocity_window_seconds" → "velocity window seconds". */
export function detailLabel(key: string): string {
  return key
    .replace(MONEY_KEY, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase()
    .trim() || key;
}

/** What the audit details may name by id, shown by name instead (products, users, vendors...). */
export type DetailNames = ReadonlyMap<string, string>;

/**
 * Audit details as short "label value" lines, readable rather than JSON: a nested object (before,
 * after, requested) as indented lines of its own, a list of values joined by commas, a list of
 * objects item by item, amounts in cents as money, instants in Johannesburg time, booleans as
 * yes/no, null as a dash, ids the page knows by name as the name. `moneyValues`: every value is
 * an amount in cents (the per-method `fees` of a payout methods change). Everything goes through
 * `html`, so it is escaped like any other text on the page.
 */
export function auditDetails(values: Record<string, unknown> | null | undefined, names: DetailNames = new Map(), moneyValues = false): SafeHtml {
  const entries = Object.entries(values ?? {});
  if (entries.length === 0) return html`—`;
  return html`${entries.map(
    ([key, value]) => html`<div class="detail"><span class="hint">${detailLabel(key)}</span> ${detailValue(key, value, moneyValues || MONEY_KEY.test(key), names)}</div>`,
  )}`;
}

function detailValue(key: string, value: unknown, isMoney: boolean, names: DetailNames): SafeHtml | string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) {
    if (value.length === 0) return '—';
    if (value.some((item) => typeof item === 'object' && item !== null)) return html`<ul class="detail-items">${value.map((item) => html`<li>${detailValue(key, item, isMoney, names)}</li>`)}</ul>`;
    return value.map((item) => String(detailValue(key, item, isMoney, names))).join(', ');
  }
  if (typeof value === 'object') return auditDetails(value as Record<string, unknown>, names, key === 'fees');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const text = String(value);
  if (isMoney && /^-?\d+$/.test(text)) return moneyFromCents(BigInt(text));
  if (typeof value === 'string' && DECIMAL_MONEY_KEY.test(key) && DECIMAL_AMOUNT.test(value)) return moneyFromDecimal(value);
  if (typeof value === 'string' && ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value))) return when(value);
  return (ID_KEY.test(key) && names.get(text)) || text;
}
