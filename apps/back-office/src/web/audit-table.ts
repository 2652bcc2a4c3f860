import type { StaffAuditRecord } from '#staff';
import { auditDetails, html, when, type DetailNames, type SafeHtml } from '#web';

/** The subject by name when the page knows it (a vendor's), otherwise its id. */
const subjectOf = (id: string | null, names: DetailNames) => (id && names.get(id)) || html`<code>${id ?? ''}</code>`;

/** The audit records of a page (the whole trail, or one item's): who, when, what, why, approved by. */
export function auditTable(records: readonly StaffAuditRecord[], caption = 'Audit trail', names: DetailNames = new Map()): SafeHtml {
  if (records.length === 0) return html`<p>No audit records yet.</p>`;
  return html`<table><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Subject</th><th scope="col">Why</th><th scope="col">Approved by</th><th scope="col">Details</th></tr></thead>
<tbody>${records.map(
    (record) => html`<tr><td>${when(record.createdAt)}</td><td>${record.actor}</td><td><code>${record.action}</code></td>
<td>${record.subjectType ? html`${record.subjectType} ${subjectOf(record.subjectId, names)}` : '—'}</td><td>${record.reason ?? '—'}</td><td>${record.approvedBy ?? '—'}</td>
<td>${auditDetails(record.details, names)}</td></tr>`,
  )}</tbody></table>`;
}
