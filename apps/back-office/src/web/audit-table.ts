import type { StaffAuditRecord } from '#staff';
import { html, when, type SafeHtml } from '#web';

/** Details as short "key value" lines (ids, statuses, amounts as strings). */
function details(values: Record<string, unknown>): SafeHtml {
  const entries = Object.entries(values);
  if (entries.length === 0) return html`—`;
  return html`${entries.map(([key, value]) => html`<div class="detail"><span class="hint">${key}</span> ${typeof value === 'string' ? value : JSON.stringify(value)}</div>`)}`;
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
