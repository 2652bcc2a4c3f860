import { createHash } from 'node:crypto';
import { Body, Controller, Get, Post, Query, Req, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import type { Response } from 'express';
import { VendorService } from '#auth';
import { createValidationPipe, DomainError, streamCsv } from '#common';
import { DashboardAuditService, roleAllows, type DashboardSession } from '#dashboard';
import {
  BATCH_CSV_HEADER,
  BATCH_STATUSES,
  // POST /batches' own request class: the upload is validated by exactly the API's rules.
  BatchRequestDto,
  MAX_BATCH_ITEMS,
  PAYOUT_REFERENCE_PATTERN,
  PayoutBatchRequestService,
  PayoutListsService,
  type BatchListQuery,
  type BatchRequestInput,
} from '#payout';
import { csrfField, CsrfInMultipartBody, csrfMatches, CurrentSession, errorSummary, html, moneyFromDecimal, PageForbidden, type SafeHtml, sessionOf, when } from '#web';
import { auditEvent, RequirePermission } from '../web/access.js';
import { batchFromCsv, CSV_HEADER_FIELDS, CSV_REQUIRED_FIELDS } from '../web/csv.js';
import type { DashboardRequest } from '../web/dashboard-request.js';
import { sendPage } from '../web/layout.js';
import { choiceOf, dayRangeOf, queryOf, selectField, type ListFilter, type ListQuery } from '../web/list-filters.js';
import { cursorList, cursorPage, exportName, PER_PAGE, principalOf } from '../web/payout-lists.js';

/** 500 rows of the widest CSV stay well under this. */
const MAX_UPLOAD_BYTES = 512 * 1024;

/** An uploaded file's batch reference by default: the same file maps to the same batch, so uploading it twice replays instead of paying twice. */
export function defaultBatchReference(csv: string): string {
  return `upload-${createHash('sha256').update(csv, 'utf8').digest('hex').slice(0, 32)}`;
}

function batchFilterOf(query: ListQuery): ListFilter<Omit<BatchListQuery, 'perPage' | 'cursor'>> {
  const errors: Record<string, string[]> = {};
  return { filter: { status: choiceOf(query.status, BATCH_STATUSES, 'status', errors), ...dayRangeOf(query, errors) }, errors };
}

interface Checked {
  request?: BatchRequestInput;
  /** The batch this reference already names: submitting again replays it, nothing more is paid. */
  existing?: { reference: string; itemCount: number; status: string };
  errors: Record<string, string[]>;
  totals?: { totalAmount: string; totalFee: string; itemCount: number };
}

/** Payout batches: the list, its download, one batch, and the upload (check, then submit). */
@Controller()
@RequirePermission('payouts:read')
export class BatchesController {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly lists: PayoutListsService,
    private readonly batches: PayoutBatchRequestService,
    private readonly audit: DashboardAuditService,
    private readonly vendors: VendorService,
  ) {}

  @Get('batches')
  async batchList(@Query() query: ListQuery, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const { filter, errors } = batchFilterOf(query);
    const valid = Object.keys(errors).length === 0;
    const page = valid ? await cursorPage(errors, (cursor) => this.lists.batches(session.vendorId, { ...filter, perPage: PER_PAGE, cursor }), query.cursor) : null;
    const kept = queryOf({ status: query.status, from: query.from, to: query.to });
    const canWrite = roleAllows(session.role, 'payouts:write');
    const rows = (page?.items ?? []).map(
      (batch) => html`<tr><td><a href="/batches/view?reference=${encodeURIComponent(batch.reference)}">${batch.reference}</a></td><td>${batch.status}</td><td class="num">${batch.item_count}</td><td class="num">${moneyFromDecimal(batch.total_amount)}</td><td class="num">${moneyFromDecimal(batch.total_fee)}</td><td>${when(batch.created_at)}</td></tr>`,
    );
    const list = cursorList({
      path: '/batches',
      what: 'batches',
      query,
      filters: selectField('status', 'Status', BATCH_STATUSES, query.status),
      errors,
      kept,
      page,
      download: 'these batches with their items',
      caption: `Newest first, ${PER_PAGE} a page.`,
      head: html`<th scope="col">Reference</th><th scope="col">Status</th><th scope="col" class="num">Items</th><th scope="col" class="num">Total</th><th scope="col" class="num">Fees</th><th scope="col">Created</th>`,
      columns: 6,
      rows,
    });
    sendPage(response, {
      title: 'Batches',
      session,
      current: '/batches',
      body: html`${canWrite ? html`<p><a class="button" href="/batches/new">Upload a batch</a></p>` : ''}
${list}`,
    }, valid ? 200 : 400);
  }

  /** The batches the list's filters select, one line per item, as the API's batches CSV (GET /api/v1/exports/batches). */
  @Get('batches/download')
  async downloadBatches(@Query() query: ListQuery, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const { filter, errors } = batchFilterOf(query);
    if (Object.keys(errors).length > 0) return response.redirect(303, `/batches?${queryOf({ status: query.status, from: query.from, to: query.to })}`);
    await streamCsv(response, exportName('batches', filter), BATCH_CSV_HEADER, this.lists.batchCsvRows(session.vendorId, filter));
  }

  @Get('batches/view')
  async batch(@Query('reference') reference: string | undefined, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const batch = await this.batches.getBatch(principalOf(session), typeof reference === 'string' ? reference : '');
    sendPage(response, {
      title: `Batch ${batch.reference}`,
      session,
      current: '/batches',
      body: html`<dl><dt>Status</dt><dd id="batch-status">${batch.status}</dd><dt>Items</dt><dd>${batch.item_count}</dd><dt>Total</dt><dd>${moneyFromDecimal(batch.total_amount)}</dd><dt>Fees</dt><dd>${moneyFromDecimal(batch.total_fee)}</dd><dt>Created</dt><dd>${when(batch.created_at)}</dd></dl>
<table><thead><tr><th scope="col">#</th><th scope="col">Reference</th><th scope="col">Method</th><th scope="col" class="num">Amount</th><th scope="col">Status</th><th scope="col">Paid</th></tr></thead>
<tbody>${batch.payouts.map((payout, index) => html`<tr><td>${index + 1}</td><td><a href="/payouts/view?reference=${encodeURIComponent(payout.reference)}">${payout.reference}</a></td><td>${payout.method}</td><td class="num">${moneyFromDecimal(payout.amount)}</td><td class="status-${payout.status}">${payout.status}</td><td>${when(payout.paid_at)}</td></tr>`)}</tbody></table>
<p><a href="/batches/view?reference=${encodeURIComponent(batch.reference)}">Refresh</a> · <a href="/batches">All batches</a></p>`,
    });
  }

  @Get('batches/new')
  @RequirePermission('payouts:write')
  uploadPage(@Req() request: DashboardRequest, @Res() response: Response): void {
    this.renderUpload(response, sessionOf(request), 200, {});
  }

  /** Step 1: the file is read and checked with POST /batches' rules; nothing is written. */
  @Post('batches/preview')
  @RequirePermission('payouts:write')
  @CsrfInMultipartBody()
  @UseInterceptors(FileInterceptor('file', { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 5 } }))
  async preview(@UploadedFile() file: { buffer: Buffer } | undefined, @Body() form: { _csrf?: string; reference?: string }, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    // Multipart bodies are parsed after the guard ran, so this form's CSRF token is checked here.
    if (!csrfMatches(session.csrfToken, form._csrf)) throw new PageForbidden('The form has expired or did not come from this dashboard. Go back, reload the page and try again.');
    await this.assertVendorMayPay(session);
    if (!file || file.buffer.length === 0) return this.renderUpload(response, session, 400, { errors: { file: ['Choose a CSV file.'] } });
    const csv = file.buffer.toString('utf8');
    const reference = form.reference?.trim() || defaultBatchReference(csv);
    const checked = await this.check(session, csv, reference);
    const status = Object.keys(checked.errors).length > 0 ? 400 : 200;
    this.renderUpload(response, session, status, { csv, reference, checked });
  }

  /** Step 2: the checked file is submitted as one atomic batch through the same service as POST /batches. */
  @Post('batches')
  @RequirePermission('payouts:write')
  async submit(@Body() form: { csv?: string; reference?: string }, @CurrentSession() session: DashboardSession, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    await this.assertVendorMayPay(session);
    const csv = typeof form.csv === 'string' ? form.csv : '';
    const reference = typeof form.reference === 'string' && form.reference.trim() ? form.reference.trim() : defaultBatchReference(csv);
    const checked = await this.check(session, csv, reference);
    if (!checked.request) return this.renderUpload(response, session, 400, { csv, reference, checked });
    try {
      const { batch, replayed } = await this.batches.createBatch(principalOf(session), checked.request);
      const details = { items: batch.item_count, total_amount: batch.total_amount, replayed };
      await this.audit.record(auditEvent(session, request, { action: 'batch.submitted', subject: batch.reference, details }));
      response.redirect(303, `/batches/view?reference=${encodeURIComponent(batch.reference)}`);
    } catch (error) {
      if (error instanceof DomainError) {
        const errors = Object.keys(error.fieldErrors).length > 0 ? error.fieldErrors : { _: [`${error.code}: ${error.message}`] };
        return this.renderUpload(response, session, 400, { csv, reference, checked: { errors } });
      }
      throw error;
    }
  }

  /** The vendor-level switch applies to the dashboard as to every token: no payouts:write, no batches. */
  private async assertVendorMayPay(session: DashboardSession): Promise<void> {
    if (!(await this.vendors.get(session.vendorId)).enabledAbilities.includes('payouts:write')) {
      throw new PageForbidden('Payouts are not enabled for your account; platform staff enable them.');
    }
  }

  private async check(session: DashboardSession, csv: string, reference: string): Promise<Checked> {
    const parsed = batchFromCsv(csv);
    if (parsed.fileErrors.length > 0) return { errors: { file: parsed.fileErrors } };
    try {
      const request = (await this.validation.transform({ reference, payouts: parsed.payouts }, { type: 'body', metatype: BatchRequestDto })) as BatchRequestInput;
      const existing = await this.batches.getBatch(principalOf(session), reference).catch((error: unknown) => {
        if (error instanceof DomainError && error.code === 'NOT_FOUND') return null;
        throw error;
      });
      // Same reference: createBatch replays an identical batch (or refuses a changed one), so it is offered as it is.
      if (existing) return { request, errors: {}, existing: { reference: existing.reference, itemCount: existing.item_count, status: existing.status } };
      const totals = await this.batches.checkBatch(session.vendorId, request);
      return { request, errors: {}, totals };
    } catch (error) {
      if (error instanceof DomainError) return { errors: Object.keys(error.fieldErrors).length > 0 ? error.fieldErrors : { _: [`${error.code}: ${error.message}`] } };
      throw error;
    }
  }

  private renderUpload(response: Response, session: DashboardSession, status: number, state: { errors?: Record<string, string[]>; csv?: string; reference?: string; checked?: Checked }): void {
    const rowErrors = groupByRow(state.checked?.errors ?? state.errors ?? {});
    const existing = state.checked?.existing;
    const preview: SafeHtml = existing
      ? html`<section class="notice" aria-labelledby="already"><h2 id="already">Already submitted</h2>
<p>This file was already submitted as batch <a href="/batches/view?reference=${encodeURIComponent(existing.reference)}">${existing.reference}</a> (${existing.itemCount} payouts, ${existing.status}). Nothing more will be paid.</p></section>`
      : state.checked
      ? state.checked.request && state.checked.totals
        ? html`<section class="notice" aria-labelledby="ready"><h2 id="ready">Ready to submit</h2>
<p>${state.checked.totals.itemCount} payouts, total ${moneyFromDecimal(state.checked.totals.totalAmount)} plus ${moneyFromDecimal(state.checked.totals.totalFee)} fees, batch reference <code>${state.reference ?? ''}</code>. Nothing has been reserved yet.</p>
<form method="post" action="/batches">${csrfField(session)}<input type="hidden" name="reference" value="${state.reference ?? ''}"><textarea name="csv" hidden aria-hidden="true">${state.csv ?? ''}</textarea>
<button type="submit">Submit batch</button> <a href="/batches/new">Cancel</a></form></section>`
        : html`<section class="errors" role="alert" aria-labelledby="refused"><h2 id="refused">The file was not accepted</h2><p>Nothing was submitted or reserved. Fix these rows and upload the file again.</p>
<table><thead><tr><th scope="col">Row</th><th scope="col">Field</th><th scope="col">Problem</th></tr></thead><tbody>${rowErrors.map((error) => html`<tr><td>${error.row}</td><td>${error.field}</td><td>${error.messages.join('; ')}</td></tr>`)}</tbody></table></section>`
      : errorSummary(state.errors);
    sendPage(response, {
      title: 'Upload a batch',
      session,
      current: '/batches',
      body: html`${preview}
<p>Up to ${MAX_BATCH_ITEMS} payouts in one CSV file with a header row. Every row is checked with the same rules as the API's POST /batches; one bad row rejects the whole file and nothing is paid or reserved.</p>
<p class="hint">Columns: ${CSV_HEADER_FIELDS.join(', ')}. Required: ${CSV_REQUIRED_FIELDS.join(', ')}. Amounts in rand with two decimals (200.00).</p>
<form method="post" action="/batches/preview" enctype="multipart/form-data">${csrfField(session)}
<label for="file">CSV file</label><input id="file" name="file" type="file" accept=".csv,text/csv" required>
<label for="reference">Batch reference <span class="hint">(optional; by default the file's fingerprint, so the same file is never paid twice)</span></label>
<input id="reference" name="reference" type="text" pattern="${PAYOUT_REFERENCE_PATTERN.source}" value="">
<p><button type="submit">Check file</button></p></form>`,
    }, status);
  }
}

/** `payouts.3.recipient.phone` → row 5 of the file (the header is row 1), field `recipient.phone`. */
function groupByRow(errors: Record<string, string[]>): { row: string; field: string; messages: string[] }[] {
  return Object.entries(errors).map(([path, messages]) => {
    const match = /^payouts\.(\d+)\.?(.*)$/.exec(path);
    if (match) return { row: String(Number(match[1]) + 2), field: match[2] || '(row)', messages };
    return { row: '—', field: path === '_' ? '' : path, messages };
  });
}
