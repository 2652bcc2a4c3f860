import type { StaffAuditRecord } from '#staff';
import { html, when, type SafeHtml } from '#web';

/** The audit records of a page (the whole trail, or one item's): who, when, what, why, approved by. */
export function auditTable(records: readonly StaffAuditRecord[], caption = 'Audit trail'): SafeHtml {
  if (records.length === 0) return html`<p>No audit records yet.</p>`;
  return html`<table><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Subject</th><th scope="col">Why</th><th scope="col">Approved by</th><th scope="col">Details</th></tr></thead>
<tbody>${records.map(
    (record) => html`<tr><td>${when(record.createdAt)}</td><td>${record.actor}</td><td><code>${record.action}</code></td>
<td>${record.subjectType ? html`${record.subjectType} <code>${record.subjectId ?? ''}</code>` : '—'}</td><td>${record.reason ?? '—'}</td><td>${record.approvedBy ?? '—'}</td>
<td><code>${JSON.stringify(record.details)}</code></td></tr>`,
  )}</tbody></table>`;
}
