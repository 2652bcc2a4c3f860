import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { VendorService } from '#auth';
import { DashboardAuditService, type DashboardSession, roleAllows } from '#dashboard';
import { streamCsv } from '#common';
import { PurchaseCatalogueService, PurchaseFulfilmentService, PURCHASE_CSV_HEADER, PurchaseStatementService, REFERENCE_PATTERN, TRANSACTION_STATUSES, PurchaseQueryService, type TransactionFilter } from '#purchase';
import { csrfField, CurrentSession, errorSummary, html, money, PageForbidden, pager, quantity, type SafeHtml, when } from '#web';
import { auditEvent, RequirePermission } from '../web/access.js';
import type { DashboardRequest } from '../web/dashboard-request.js';
import { choiceOf, dayFields, dayRangeOf, downloadLink, queryOf, selectField, type ListFilter } from '../web/list-filters.js';
import { sendPage } from '../web/layout.js';

const PER_PAGE = 25;

/** The list's filters, kept in the pager's and the download's links. */
const FILTERS = ['status', 'reference', 'product', 'from', 'to'] as const;
type PurchaseQuery = Partial<Record<(typeof FILTERS)[number] | 'page', string>>;

/** What the list and its download select: the same filter for both, so the file holds what the pages show. */
function purchaseFilterOf(query: PurchaseQuery): ListFilter<Omit<TransactionFilter, 'page' | 'perPage'>> {
  const errors: Record<string, string[]> = {};
  const filter: Omit<TransactionFilter, 'page' | 'perPage'> = { status: choiceOf(query.status, TRANSACTION_STATUSES, 'status', errors), ...dayRangeOf(query, errors) };
  if (query.reference) {
    if (REFERENCE_PATTERN.test(query.reference)) filter.reference = query.reference;
    else errors.reference = ['A reference is 1 to 128 letters, digits or _ . : -'];
  }
  if (query.product) {
    const productId = Number(query.product);
    if (/^[1-9]\d{0,9}$/.test(query.product) && productId <= 2_147_483_647) filter.productId = productId;
    else errors.product = ['Choose a listed product.'];
  }
  return { filter, errors };
}

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
    private readonly transactions: PurchaseQueryService,
    private readonly fulfilment: PurchaseFulfilmentService,
    private readonly vendors: VendorService,
    private readonly audit: DashboardAuditService,
    private readonly catalogue: PurchaseCatalogueService,
    private readonly statements: PurchaseStatementService,
  ) {}

  @Get()
  async list(@Query() query: PurchaseQuery, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const { filter: chosen, errors } = purchaseFilterOf(query);
    const page = Number(query.page ?? '1');
    const filter: TransactionFilter = { ...chosen, page: Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1, perPage: PER_PAGE };
    const result = Object.keys(errors).length ? null : await this.transactions.list(session.vendorId, filter);
    const kept = Object.fromEntries(FILTERS.map((key) => [key, query[key]]));
    const [products, choices] = await Promise.all([
      this.catalogue.productLabels([...(result?.items ?? []).map((purchase) => purchase.product_id), ...(filter.productId ? [filter.productId] : [])]),
      this.catalogue.enabledProductLabels(session.vendorId),
    ]);
    // A product no longer enabled (or withdrawn) stays choosable while it is the one filtered on.
    const selected = filter.productId !== undefined ? products.get(String(filter.productId)) : undefined;
    const options = selected && !choices.some((choice) => choice.id === filter.productId) ? [{ id: filter.productId!, ...selected }, ...choices] : choices;
    const rows = (result?.items ?? []).map((purchase) => {
      const product = products.get(String(purchase.product_id));
      return html`<tr><td><a href="/purchases/${purchase.id}">${purchase.reference}</a></td><td class="status-${purchase.status}">${purchase.status}</td>
<td>${product?.name ?? purchase.product_id}</td><td>${product?.operator ?? '—'}</td><td class="num">${money(purchase.charge_minor, purchase.currency)}</td><td>${quantity(purchase.destination_amount, purchase.destination_unit)}</td><td>${when(purchase.created_at)}</td></tr>`;
    });
    sendPage(response, {
      title: 'Purchases',
      session,
      current: '/purchases',
      body: html`${errorSummary(errors)}
<form method="get" action="/purchases" class="filters" role="search" aria-label="Filter purchases">
${selectField('status', 'Status', TRANSACTION_STATUSES, query.status)}
<div><label for="product">Product</label><select id="product" name="product"><option value="">Any</option>${options.map(
        (choice) => html`<option value="${choice.id}"${filter.productId === choice.id ? html` selected` : ''}>${choice.operator}: ${choice.name}</option>`,
      )}</select></div>
<div><label for="reference">Reference</label><input id="reference" name="reference" type="text" value="${query.reference ?? ''}"></div>
${dayFields(query)}
<div><button type="submit">Filter</button> <a href="/purchases">Clear</a></div></form>
${result ? downloadLink('/purchases/download', queryOf(kept), 'these purchases') : ''}
<table><caption class="hint">${result ? `${result.total} purchases, newest first. Times are Johannesburg time.` : ''}</caption>
<thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col">Product</th><th scope="col">Operator</th><th scope="col" class="num">Charge</th><th scope="col">Value</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7">No purchases match.</td></tr>`}</tbody></table>
${pager('/purchases', kept, filter.page, result?.total ?? 0, PER_PAGE)}`,
    }, result ? 200 : 400);
  }

  /**
   * The purchases the list's filters select, every page of them, as the API's purchases CSV
   * (`GET /exports/purchases`: same columns, same streaming service), oldest first.
   */
  @Get('download')
  async download(@Query() query: PurchaseQuery, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const { filter, errors } = purchaseFilterOf(query);
    const kept = queryOf(Object.fromEntries(FILTERS.map((key) => [key, query[key]])));
    if (Object.keys(errors).length > 0) return response.redirect(303, `/purchases?${kept}`);
    const name = `purchases-${filter.dateFrom ?? 'start'}-${filter.dateTo ?? 'now'}.csv`;
    await streamCsv(response, name, PURCHASE_CSV_HEADER, this.statements.csvRows(session.vendorId, filter));
  }

  @Get(':id')
  async detail(@Param('id') id: string, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    // Vendor-scoped read: another vendor's id is a NotFoundError, shown as 404.
    const purchase = await this.transactions.get(session.vendorId, id);
    const canReveal = roleAllows(session.role, 'fulfilment:reveal') && (await this.vendors.get(session.vendorId)).enabledAbilities.includes('fulfilment:read');
    const history = await this.transactions.history(session.vendorId, id);
    const product = (await this.catalogue.productLabels([purchase.product_id])).get(String(purchase.product_id));
    sendPage(response, {
      title: `Purchase ${purchase.reference}`,
      session,
      current: '/purchases',
      body: html`<dl>
<dt>Status</dt><dd class="status-${purchase.status}">${purchase.status}</dd>
<dt>Charge</dt><dd>${money(purchase.charge_minor, purchase.currency)}</dd>
${deliveredValue(purchase)}
<dt>Product</dt><dd>${product?.name ?? purchase.product_id} <span class="hint">(id ${purchase.product_id})</span></dd>
<dt>Operator</dt><dd>${product?.operator ?? '—'}</dd>
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
   * Shows the delivery data on an explicit click, through the same PurchaseFulfilmentService as the API
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
