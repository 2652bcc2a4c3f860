import type { StaffAuditRecord } from '#staff';
import { html, money, when, type SafeHtml } from '#web';

/** Amounts in cents, by their key (`amount_cents`, `feeCents`, `daily_cap_minor`): shown as ZAR. */
const MONEY_KEY = /(Cents|_cents|_minor)$/;

/**
 * Details as short "key value" lines, readable rather than JSON: a nested object (before, after,
 * requested) as indented lines of its own, a list of values joined by commas, a list of objects
 * item by item, amounts in cents as ZAR with two decimals, booleans as yes/no, null as a dash.
 * `moneyValues`: every value is an amount in cents (the per-method `fees` of a payout methods change).
 * Everything goes through `html`, so it is escaped like any other text on the page.
 */
export function details(values: Record<string, unknown>, moneyValues = false): SafeHtml {
  const entries = Object.entries(values);
  if (entries.length === 0) return html`—`;
  return html`${entries.map(([key, value]) => html`<div class="detail"><span class="hint">${key}</span> ${detailValue(key, value, moneyValues || MONEY_KEY.test(key))}</div>`)}`;
}

function detailValue(key: string, value: unknown, isMoney: boolean): SafeHtml | string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) {
    if (value.length === 0) return '—';
    if (value.some((item) => typeof item === 'object' && item !== null)) return html`<ul class="detail-items">${value.map((item) => html`<li>${detailValue(key, item, isMoney)}</li>`)}</ul>`;
    return value.map((item) => String(detailValue(key, item, isMoney))).join(', ');
  }
  if (typeof value === 'object') return details(value as Record<string, unknown>, key === 'fees');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (isMoney && (typeof value === 'string' || typeof value === 'number') && /^-?\d+$/.test(String(value))) return money(BigInt(String(value)));
  return String(value);
}

/** The audit records of a page (the whole trail, or one item's): who, when, what, why, approved by. */
export function auditTable(records: readonly StaffAuditRecord[], caption = 'Audit trail'): SafeHtml {
  if (records.length === 0) return html`<p>No audit records yet.</p>`;
  return html`<table><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Subject</th><th scope="col">Why</th><th scope="col">Approved by</th><th scope="col">Details</th></tr></thead>
<tbody>${records.map(
    (record) => html`<tr><td>${when(record.createdAt)}</td><td>${record.actor}</td><td><code>${record.action}</code></td>
<td>${record.subjectType ? html`${record.subjectType} <code>${record.subjectId ?? ''}</code>` : '—'}</td><td>${record.reason ?? '—'}</td><td>${record.approvedBy ?? '—'}</td>
<td>${details(record.details)}</td></tr>`,
  )}</tbody></table>`;
}
