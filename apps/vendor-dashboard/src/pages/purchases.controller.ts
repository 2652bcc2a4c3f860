import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { VendorService } from '#auth';
import { DashboardAuditRepository, type DashboardSession, roleAllows } from '#dashboard';
import { CatalogueRepository, FulfilmentService, REFERENCE_PATTERN, TRANSACTION_STATUSES, TransactionQueryService, type TransactionFilter, type TransactionStatus } from '#purchase';
import { csrfField, CurrentSession, errorSummary, html, isoDayOrUndefined, money, PageForbidden, pager, quantity, type SafeHtml, when } from '#web';
import { auditEvent, RequirePermission } from '../web/access.js';
import type { DashboardRequest } from '../web/dashboard-request.js';
import { sendPage } from '../web/layout.js';

const PER_PAGE = 25;

/** The list's filters, kept in the pager's links. */
const FILTERS = ['status', 'reference', 'from', 'to'] as const;
type PurchaseQuery = Partial<Record<(typeof FILTERS)[number] | 'page', string>>;

/**
 * The value the purchase was for, labelled by what happened to it: only a completed (or later
 * reversed) purchase delivered anything.
 */
function deliveredValue(purchase: { status: string; destination_amount: string; destination_unit: string }): SafeHtml {
  const value = quantity(purchase.destination_amount, purchase.destination_unit);
  switch (purchase.status) {
    case 'completed':
      return html`<dt>Value delivered</dt><dd>${value}</dd>`;
    case 'reversed':
      return html`<dt>Value delivered</dt><dd>${value}, since reversed by the provider</dd>`;
    case 'failed':
      return html`<dt>Value ordered</dt><dd>${value}: not delivered, the purchase failed</dd>`;
    default:
      return html`<dt>Value ordered</dt><dd>${value}: not delivered yet</dd>`;
  }
}

@Controller('purchases')
@RequirePermission('purchases:read')
export class PurchasesController {
  constructor(
    private readonly transactions: TransactionQueryService,
    private readonly fulfilment: FulfilmentService,
    private readonly vendors: VendorService,
    private readonly audit: DashboardAuditRepository,
    private readonly catalogue: CatalogueRepository,
  ) {}

  @Get()
  async list(@Query() query: PurchaseQuery, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const errors: Record<string, string[]> = {};
    const filter: TransactionFilter = { page: 1, perPage: PER_PAGE };
    if (query.status) {
      if ((TRANSACTION_STATUSES as readonly string[]).includes(query.status)) filter.status = query.status as TransactionStatus;
      else errors.status = ['Choose a listed status.'];
    }
    if (query.reference) {
      if (REFERENCE_PATTERN.test(query.reference)) filter.reference = query.reference;
      else errors.reference = ['A reference is 1 to 128 letters, digits or _ . : -'];
    }
    for (const [key, field] of [['from', 'dateFrom'], ['to', 'dateTo']] as const) {
      filter[field] = isoDayOrUndefined(query[key]);
      if (query[key] && !filter[field]) errors[key] = ['Use a real date such as 2026-01-31.'];
    }
    if (filter.dateFrom && filter.dateTo && filter.dateFrom > filter.dateTo) errors.to = ['The end date is before the start date.'];
    const page = Number(query.page ?? '1');
    filter.page = Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1;
    const result = Object.keys(errors).length ? null : await this.transactions.list(session.vendorId, filter);
    const kept = Object.fromEntries(FILTERS.map((key) => [key, query[key]]));
    const products = await this.catalogue.productNames((result?.items ?? []).map((purchase) => purchase.product_id));
    const rows = (result?.items ?? []).map(
      (purchase) => html`<tr><td><a href="/purchases/${purchase.id}">${purchase.reference}</a></td><td class="status-${purchase.status}">${purchase.status}</td>
<td>${products.get(String(purchase.product_id)) ?? purchase.product_id}</td><td class="num">${money(purchase.charge_minor, purchase.currency)}</td><td>${quantity(purchase.destination_amount, purchase.destination_unit)}</td><td>${when(purchase.created_at)}</td></tr>`,
    );
    sendPage(response, {
      title: 'Purchases',
      session,
      current: '/purchases',
      body: html`${errorSummary(errors)}
<form method="get" action="/purchases" class="filters" role="search" aria-label="Filter purchases">
<div><label for="status">Status</label><select id="status" name="status"><option value="">Any</option>${TRANSACTION_STATUSES.map((status) => html`<option value="${status}"${query.status === status ? html` selected` : ''}>${status}</option>`)}</select></div>
<div><label for="reference">Reference</label><input id="reference" name="reference" type="text" value="${query.reference ?? ''}"></div>
<div><label for="from">From (Johannesburg day)</label><input id="from" name="from" type="date" value="${query.from ?? ''}"></div>
<div><label for="to">To (Johannesburg day)</label><input id="to" name="to" type="date" value="${query.to ?? ''}"></div>
<div><button type="submit">Filter</button> <a href="/purchases">Clear</a></div></form>
<table><caption class="hint">${result ? `${result.total} purchases, newest first. Times are Johannesburg time.` : ''}</caption>
<thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col">Product</th><th scope="col" class="num">Charge</th><th scope="col">Value</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6">No purchases match.</td></tr>`}</tbody></table>
${pager('/purchases', kept, filter.page, result?.total ?? 0, PER_PAGE)}`,
    }, result ? 200 : 400);
  }

  @Get(':id')
  async detail(@Param('id') id: string, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    // Vendor-scoped read: another vendor's id is a NotFoundError, shown as 404.
    const purchase = await this.transactions.get(session.vendorId, id);
    const canReveal = roleAllows(session.role, 'fulfilment:reveal') && (await this.vendors.get(session.vendorId)).enabledAbilities.includes('fulfilment:read');
    const history = await this.transactions.history(session.vendorId, id);
    const products = await this.catalogue.productNames([purchase.product_id]);
    sendPage(response, {
      title: `Purchase ${purchase.reference}`,
      session,
      current: '/purchases',
      body: html`<dl>
<dt>Status</dt><dd class="status-${purchase.status}">${purchase.status}</dd>
<dt>Charge</dt><dd>${money(purchase.charge_minor, purchase.currency)}</dd>
${deliveredValue(purchase)}
<dt>Product</dt><dd>${products.get(String(purchase.product_id)) ?? purchase.product_id} <span class="hint">(id ${purchase.product_id})</span></dd>
<dt>Transaction id</dt><dd><code>${purchase.id}</code></dd>
<dt>Error</dt><dd>${purchase.error_code ?? '—'}</dd>
<dt>Created</dt><dd>${when(purchase.created_at)}</dd>
<dt>Completed</dt><dd>${when(purchase.completed_at)}</dd>
<dt>Reversed</dt><dd>${when(purchase.reversed_at)}</dd>
<dt>Fulfilment data</dt><dd>${
        !purchase.fulfilment_available
          ? 'None.'
          : canReveal
            ? html`<form method="post" action="/purchases/${purchase.id}/fulfilment">${csrfField(session)}<button type="submit">Reveal PIN or eSIM details</button> <span class="hint">Each reveal is recorded.</span></form>`
            : 'Available to owners and finance, and through the API (GET /transactions/{id}/fulfilment).'
      }</dd>
</dl>
<h2>History</h2>
<table><thead><tr><th scope="col">When</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Why</th></tr></thead>
<tbody>${history.map((event) => html`<tr><td>${when(event.created_at)}</td><td>${event.from_status ?? '—'}</td><td>${event.to_status}</td><td>${event.reason}</td></tr>`)}</tbody></table>
<p><a href="/purchases">Back to purchases</a></p>`,
    });
  }

  /**
   * Shows the delivery data on an explicit click, through the same FulfilmentService as the API
   * (vendor-scoped, only for a completed purchase, a read row written in the same transaction).
   * A POST answer with Cache-Control: no-store, so the browser neither caches nor replays it.
   */
  @Post(':id/fulfilment')
  @HttpCode(200)
  @RequirePermission('fulfilment:reveal')
  async reveal(@Param('id') id: string, @CurrentSession() session: DashboardSession, @Req() request: DashboardRequest, @Res() response: Response): Promise<void> {
    // The vendor-level switch applies to the dashboard as it does to every token.
    if (!(await this.vendors.get(session.vendorId)).enabledAbilities.includes('fulfilment:read')) throw new PageForbidden('Fulfilment reads are not enabled for your account.');
    const data = await this.fulfilment.read({ vendorId: session.vendorId, tokenId: '', dashboardUserId: session.userId }, id);
    await this.audit.record(auditEvent(session, request, { action: 'fulfilment.revealed', subject: id }));
    sendPage(response, {
      title: 'Fulfilment details',
      session,
      current: '/purchases',
      body: html`<p>Delivery details of purchase <code>${id}</code>. Do not share them beyond the customer.</p>
<dl>${
        data.pin
          ? html`<dt>PIN</dt><dd class="secret" id="fulfilment-pin">${data.pin.code}</dd><dt>Serial</dt><dd>${data.pin.serial}</dd>`
          : data.esim
            ? html`<dt>ICCID</dt><dd>${data.esim.iccid}</dd><dt>SM-DP+ address</dt><dd>${data.esim.smdp_address}</dd><dt>Activation code</dt><dd class="secret" id="fulfilment-activation">${data.esim.activation_code}</dd>`
            : ''
      }</dl>
<p><a href="/purchases/${id}">Back to the purchase</a></p>`,
    });
  }
}
