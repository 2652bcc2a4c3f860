import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { VendorService } from '#auth';
import { NotFoundError, UUID_PATTERN } from '#common';
import { PAYOUT_REFERENCE_PATTERN, PAYOUT_STATUSES, PayoutListsService } from '#payout';
import { PurchaseCatalogueService, TRANSACTION_STATUSES, PurchaseQueryService } from '#purchase';
import { errorSummary, html, money, moneyFromDecimal, pager, quantity, when, type SafeHtml } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { sendPage } from '../web/layout.js';
import { days, keptFilters, listFilters, queryText, statusAndDays, type ListQuery } from '../web/list-query.js';
import { sessionOf, type StaffRequest } from '../web/staff-request.js';

const PER_PAGE = 25;

/** The links between a vendor's page and its lists, the current one marked. */
function recordsNav(vendorId: string, current: 'purchases' | 'payouts' | 'batches'): SafeHtml {
  const link = (path: typeof current, label: string) =>
    html`<a href="/vendors/${vendorId}/${path}"${path === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<p><a href="/vendors/${vendorId}">Back to the vendor</a> · ${link('purchases', 'Purchases')} · ${link('payouts', 'Payouts')} · ${link('batches', 'Batches')}</p>`;
}

/** A filter form of a vendor's list: its fields, Filter, and Clear back to the unfiltered list. */
function filterForm(action: string, label: string, fields: SafeHtml): SafeHtml {
  return html`<form method="get" action="${action}" class="filters" role="search" aria-label="${label}">${fields}
<div><button type="submit">Filter</button> <a href="${action}">Clear</a></div></form>`;
}

/**
 * One vendor's purchases, payouts and batches as staff see them (docs/BACK-OFFICE.md, "A vendor's
 * records"): newest first, filtered by status and Johannesburg days, numbered pages; each
 * purchase and payout links to its staff page (provider trail, proposals, audit records). Reads go
 * through the domains' own vendor-scoped services, so another vendor's record never shows.
 */
@Controller('vendors')
export class VendorRecordsController {
  constructor(
    private readonly vendors: VendorService,
    private readonly transactions: PurchaseQueryService,
    private readonly payouts: PayoutListsService,
    private readonly catalogue: PurchaseCatalogueService,
  ) {}

  /** The vendor of the path; an id that is not a UUID names no vendor (404 without a query). */
  private vendorOf(id: string) {
    if (!UUID_PATTERN.test(id)) throw new NotFoundError('vendor');
    return this.vendors.get(id.toLowerCase());
  }

  @Get(':id/purchases')
  @RequireStaffPermission('queues:read')
  async purchases(@Param('id') id: string, @Query() query: ListQuery, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const vendor = await this.vendorOf(id);
    const filters = listFilters(query, TRANSACTION_STATUSES);
    const valid = Object.keys(filters.errors).length === 0;
    const result = valid ? await this.transactions.list(vendor.id, { status: filters.status, dateFrom: filters.dateFrom, dateTo: filters.dateTo, page: filters.page, perPage: PER_PAGE }) : null;
    const items = result?.items ?? [];
    const products = await this.catalogue.productNames(items.map((purchase) => purchase.product_id));
    const path = `/vendors/${vendor.id}/purchases`;
    sendPage(response, {
      title: `${vendor.name}: purchases`,
      session: sessionOf(request),
      current: '/vendors',
      body: html`${recordsNav(vendor.id, 'purchases')}${errorSummary(filters.errors)}${filterForm(path, 'Filter purchases', statusAndDays(query, TRANSACTION_STATUSES))}
<table><caption class="hint">${result ? `${result.total} purchase${result.total === 1 ? '' : 's'}, newest first. Times are Johannesburg time.` : ''}</caption>
<thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col">Product</th><th scope="col" class="num">Charge</th><th scope="col">Value</th><th scope="col">Created</th></tr></thead>
<tbody>${items.length ? items.map(
        (purchase) => html`<tr><td><a href="/queues/purchases/${purchase.id}">${purchase.reference}</a></td><td class="status-${purchase.status}">${purchase.status}</td>
<td>${products.get(String(purchase.product_id)) ?? purchase.product_id}</td><td class="num">${money(purchase.charge_minor, purchase.currency)}</td><td>${quantity(purchase.destination_amount, purchase.destination_unit)}</td><td>${when(purchase.created_at)}</td></tr>`,
      ) : html`<tr><td colspan="6">No purchases match.</td></tr>`}</tbody></table>
${pager(path, keptFilters(query, ['status', 'from', 'to']), filters.page, result?.total ?? 0, PER_PAGE)}`,
    }, valid ? 200 : 400);
  }

  @Get(':id/payouts')
  @RequireStaffPermission('queues:read')
  async payoutList(@Param('id') id: string, @Query() query: ListQuery, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const vendor = await this.vendorOf(id);
    const filters = listFilters(query, PAYOUT_STATUSES);
    const batch = queryText(query, 'batch');
    if (batch !== undefined && !PAYOUT_REFERENCE_PATTERN.test(batch)) filters.errors.batch = ['A batch reference starts with a letter or digit, then up to 99 letters, digits or . _ : / -'];
    const valid = Object.keys(filters.errors).length === 0;
    const result = valid
      ? await this.payouts.payoutPage(vendor.id, { status: filters.status, dateFrom: filters.dateFrom, dateTo: filters.dateTo, batch, page: filters.page, perPage: PER_PAGE })
      : null;
    const items = result?.items ?? [];
    const path = `/vendors/${vendor.id}/payouts`;
    sendPage(response, {
      title: `${vendor.name}: payouts`,
      session: sessionOf(request),
      current: '/vendors',
      body: html`${recordsNav(vendor.id, 'payouts')}${errorSummary(filters.errors)}${filterForm(
        path,
        'Filter payouts',
        html`${statusAndDays(query, PAYOUT_STATUSES)}<div><label for="batch">Batch reference</label><input id="batch" name="batch" type="text" value="${batch ?? ''}"></div>`,
      )}
<table><caption class="hint">${result ? `${result.total} payout${result.total === 1 ? '' : 's'}${batch ? ` of batch ${batch}` : ''}, newest first. Times are Johannesburg time.` : ''}</caption>
<thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col">Method</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Fee</th><th scope="col">Created</th></tr></thead>
<tbody>${items.length ? items.map(
        (payout) => html`<tr><td><a href="/queues/payouts/${payout.id}">${payout.reference}</a></td><td class="status-${payout.status}">${payout.status}${payout.status_reason ? html` (${payout.status_reason})` : ''}</td>
<td>${payout.method}</td><td class="num">${moneyFromDecimal(payout.amount, payout.currency)}</td><td class="num">${moneyFromDecimal(payout.fee, payout.currency)}</td><td>${when(payout.created_at)}</td></tr>`,
      ) : html`<tr><td colspan="6">No payouts match.</td></tr>`}</tbody></table>
${pager(path, keptFilters(query, ['status', 'from', 'to', 'batch']), filters.page, result?.total ?? 0, PER_PAGE)}`,
    }, valid ? 200 : 400);
  }

  @Get(':id/batches')
  @RequireStaffPermission('queues:read')
  async batches(@Param('id') id: string, @Query() query: ListQuery, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const vendor = await this.vendorOf(id);
    // A batch's status is derived from its items', so the list filters on days only.
    const filters = listFilters(query, []);
    const valid = Object.keys(filters.errors).length === 0;
    const result = valid ? await this.payouts.batchPage(vendor.id, { dateFrom: filters.dateFrom, dateTo: filters.dateTo, page: filters.page, perPage: PER_PAGE }) : null;
    const items = result?.items ?? [];
    const path = `/vendors/${vendor.id}/batches`;
    sendPage(response, {
      title: `${vendor.name}: batches`,
      session: sessionOf(request),
      current: '/vendors',
      body: html`${recordsNav(vendor.id, 'batches')}${errorSummary(filters.errors)}${filterForm(path, 'Filter batches', days(query))}
<table><caption class="hint">${result ? `${result.total} batch${result.total === 1 ? '' : 'es'}, newest first. Times are Johannesburg time.` : ''}</caption>
<thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col" class="num">Items</th><th scope="col" class="num">Total</th><th scope="col" class="num">Fees</th><th scope="col">Created</th></tr></thead>
<tbody>${items.length ? items.map(
        (batch) => html`<tr><td><a href="/vendors/${vendor.id}/payouts?batch=${encodeURIComponent(batch.reference)}">${batch.reference}</a></td><td>${batch.status}</td><td class="num">${batch.item_count}</td>
<td class="num">${moneyFromDecimal(batch.total_amount, batch.currency)}</td><td class="num">${moneyFromDecimal(batch.total_fee, batch.currency)}</td><td>${when(batch.created_at)}</td></tr>`,
      ) : html`<tr><td colspan="6">No batches match.</td></tr>`}</tbody></table>
${pager(path, keptFilters(query, ['from', 'to']), filters.page, result?.total ?? 0, PER_PAGE)}`,
    }, valid ? 200 : 400);
  }
}
