import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { VendorService } from '#auth';
import { UUID_PATTERN, streamCsv, type CsvCell } from '#common';
import { StaffAuditLog, type StaffAuditFilter, type StaffAuditRecord } from '#staff';
import { errorSummary, html, pager } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { auditTable } from '../web/audit-table.js';
import { sendPage } from '../web/layout.js';
import { days, keptFilters, listFilters, queryText, type ListQuery } from '../web/list-query.js';
import { sessionOf, type StaffRequest } from '../web/staff-request.js';

const PER_PAGE = 50;
/** The query keys the trail filters on, kept in the pager's and the export's links. */
const FILTERS = ['actor', 'action', 'vendor', 'from', 'to', 'subject_type', 'subject_id'] as const;

/** The export's columns, in order: the record as the database keeps it, times in UTC ISO 8601, details as JSON. */
export const AUDIT_CSV_HEADER = ['id', 'created_at', 'actor', 'action', 'subject_type', 'subject_id', 'vendor_id', 'vendor_name', 'reason', 'proposal_id', 'approved_by', 'details'] as const;

const csvRow = (record: StaffAuditRecord, vendorNames: ReadonlyMap<string, string>): CsvCell[] => [
  record.id,
  new Date(record.createdAt).toISOString(),
  record.actor,
  record.action,
  record.subjectType,
  record.subjectId,
  record.vendorId,
  (record.vendorId && vendorNames.get(record.vendorId)) || null,
  record.reason,
  record.proposalId,
  record.approvedBy,
  JSON.stringify(record.details ?? {}),
];

/**
 * The staff audit trail, newest first (docs/BACK-OFFICE.md, "Audit trail"): filtered by who, what,
 * vendor, Johannesburg days and (from an item's page) one subject; numbered pages; the same
 * selection as a CSV download, streamed, its text cells neutralised against spreadsheet formulas
 * by the exports' own writer (`streamCsv`).
 */
@Controller('audit')
export class AuditController {
  constructor(
    private readonly audit: StaffAuditLog,
    private readonly vendors: VendorService,
  ) {}

  @Get()
  @RequireStaffPermission('audit:read')
  async page(@Query() query: ListQuery, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const { filter, page, errors } = this.filterOf(query);
    const valid = Object.keys(errors).length === 0;
    const [result, actions, vendors] = await Promise.all([valid ? this.audit.page(filter, page, PER_PAGE) : null, this.audit.actions(), this.vendors.list()]);
    // Subjects are mostly vendors: the trail names them (those of the records shown, listed or not).
    const vendorNames = await this.vendors.namesOf([filter.vendorId, ...(result?.records ?? []).flatMap((record) => [record.vendorId, record.subjectType === 'vendor' ? record.subjectId : null])]);
    // The list holds the first 500 vendors by name: the chosen one is offered even beyond them.
    const choices = filter.vendorId && !vendors.some((vendor) => vendor.id === filter.vendorId) && vendorNames.has(filter.vendorId)
      ? [{ id: filter.vendorId, name: vendorNames.get(filter.vendorId) ?? '' }, ...vendors]
      : vendors;
    const kept = keptFilters(query, FILTERS);
    const selection = new URLSearchParams(Object.entries(kept).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString();
    const exportLink = `/audit/export.csv${selection ? `?${selection}` : ''}`;
    const chosen = (key: string, value: string) => (queryText(query, key) === value ? html` selected` : '');
    const subject = filter.subjectType || filter.subjectId
      ? html`<input type="hidden" name="subject_type" value="${filter.subjectType ?? ''}"><input type="hidden" name="subject_id" value="${filter.subjectId ?? ''}">`
      : '';
    sendPage(response, {
      title: 'Audit trail',
      session: sessionOf(request),
      current: '/audit',
      body: html`<p>Append-only: the database refuses to change or delete a record.</p>${errorSummary(errors)}
<form method="get" action="/audit" class="filters" role="search" aria-label="Filter the audit trail">${subject}
<div><label for="actor">Who (part of an email or ops:user)</label><input id="actor" name="actor" type="text" maxlength="200" value="${queryText(query, 'actor') ?? ''}"></div>
<div><label for="action">What</label><select id="action" name="action"><option value="">Any action</option>${actions.map((action) => html`<option value="${action}"${chosen('action', action)}>${action}</option>`)}</select></div>
<div><label for="vendor">Vendor</label><select id="vendor" name="vendor"><option value="">Any vendor</option>${choices.map((vendor) => html`<option value="${vendor.id}"${chosen('vendor', vendor.id)}>${vendor.name}</option>`)}</select></div>
${days(query)}
<div><button type="submit">Filter</button> <a href="/audit">Clear</a></div></form>
${filter.subjectType || filter.subjectId ? html`<p>Only the records of ${filter.subjectType ?? 'any subject'} <code>${filter.subjectId ?? ''}</code>.</p>` : ''}
<p>${result ? `${result.total} record${result.total === 1 ? '' : 's'}, newest first. ` : ''}<a href="${exportLink}" download>Download these records as CSV</a></p>
${auditTable(result?.records ?? [], 'Audit trail', vendorNames)}
${pager('/audit', kept, page, result?.total ?? 0, PER_PAGE)}`,
    }, valid ? 200 : 400);
  }

  /** Every record the filters select, newest first, as a CSV file streamed as it is read. */
  @Get('export.csv')
  @RequireStaffPermission('audit:read')
  async export(@Query() query: ListQuery, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const { filter, errors } = this.filterOf(query);
    if (Object.keys(errors).length > 0) {
      return sendPage(response, { title: 'Audit trail', session: sessionOf(request), current: '/audit', body: html`${errorSummary(errors)}<p><a href="/audit">Back to the audit trail</a></p>` }, 400);
    }
    const { audit, vendors } = this;
    async function* rows() {
      for await (const records of audit.batches(filter)) {
        const vendorNames = await vendors.namesOf(records.map((record) => record.vendorId));
        yield records.map((record) => csvRow(record, vendorNames));
      }
    }
    await streamCsv(response, `staff-audit-${filter.dateFrom ?? 'start'}-${filter.dateTo ?? 'now'}.csv`, AUDIT_CSV_HEADER, rows());
  }

  /** The query as the trail's filter, with the field errors of what it could not read. */
  private filterOf(query: ListQuery): { filter: StaffAuditFilter; page: number; errors: Record<string, string[]> } {
    const { dateFrom, dateTo, page, errors } = listFilters(query, []);
    const actor = queryText(query, 'actor');
    const action = queryText(query, 'action');
    const vendorId = queryText(query, 'vendor');
    const subjectType = queryText(query, 'subject_type');
    const subjectId = queryText(query, 'subject_id');
    for (const [key, value] of [['actor', actor], ['action', action], ['subject_type', subjectType], ['subject_id', subjectId]] as const) {
      if (value !== undefined && (value.length > 200 || /\p{Cc}/u.test(value))) errors[key] = ['At most 200 characters, no control characters.'];
    }
    if (vendorId !== undefined && !UUID_PATTERN.test(vendorId)) errors.vendor = ['Choose a listed vendor.'];
    return { filter: { actor, action, vendorId: vendorId?.toLowerCase(), subjectType, subjectId, dateFrom, dateTo }, page, errors };
  }
}
