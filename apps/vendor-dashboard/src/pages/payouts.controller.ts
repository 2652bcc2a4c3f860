import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { streamCsv } from '#common';
import type { DashboardSession } from '#dashboard';
import { PAYOUT_CSV_HEADER, PAYOUT_METHODS, PAYOUT_STATUSES, PayoutAccountService, PayoutListsService, PayoutMethodsService, PayoutRequestService, type PayoutListQuery } from '#payout';
import { CurrentSession, html, moneyFromDecimal, when } from '#web';
import { RequirePermission } from '../web/access.js';
import { sendPage } from '../web/layout.js';
import { choiceOf, dayRangeOf, queryOf, selectField, type ListFilter, type ListQuery } from '../web/list-filters.js';
import { cursorList, cursorPage, exportName, PER_PAGE, principalOf } from '../web/payout-lists.js';

/** The payout list's filters, shared by the page and its download so the file holds what the pages show. */
function payoutFilterOf(query: ListQuery): ListFilter<Omit<PayoutListQuery, 'perPage' | 'cursor'>> {
  const errors: Record<string, string[]> = {};
  const filter = { status: choiceOf(query.status, PAYOUT_STATUSES, 'status', errors), method: choiceOf(query.method, PAYOUT_METHODS, 'method', errors), ...dayRangeOf(query, errors) };
  return { filter, errors };
}

/** The payout account and methods, the payout list, its download and one payout (batches: BatchesController). */
@Controller()
@RequirePermission('payouts:read')
export class PayoutsController {
  constructor(
    private readonly lists: PayoutListsService,
    private readonly accounts: PayoutAccountService,
    private readonly methods: PayoutMethodsService,
    private readonly payouts: PayoutRequestService,
  ) {}

  @Get('payouts')
  async list(@Query() query: ListQuery, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const { filter, errors } = payoutFilterOf(query);
    const [account, methods] = await Promise.all([this.accounts.getAccountView(session.vendorId), this.methods.listMethodViews(session.vendorId)]);
    const valid = Object.keys(errors).length === 0;
    const page = valid ? await cursorPage(errors, (cursor) => this.lists.payoutsWithBatches(session.vendorId, { ...filter, perPage: PER_PAGE, cursor }), query.cursor) : null;
    const kept = queryOf({ status: query.status, method: query.method, from: query.from, to: query.to });
    const methodName = new Map(methods.map((method) => [method.method as string, method.name]));
    const rows = (page?.items ?? []).map(
      ({ payout, batchReference }) => html`<tr><td><a href="/payouts/view?reference=${encodeURIComponent(payout.reference)}">${payout.reference}</a></td><td class="status-${payout.status}">${payout.status}</td><td>${methodName.get(payout.method) ?? payout.method}</td><td class="num">${moneyFromDecimal(payout.amount)}</td><td class="num">${moneyFromDecimal(payout.fee)}</td><td>${batchReference ? html`<a href="/batches/view?reference=${encodeURIComponent(batchReference)}">${batchReference}</a>` : '—'}</td><td>${when(payout.created_at)}</td><td>${when(payout.paid_at)}</td></tr>`,
    );
    const list = cursorList({
      path: '/payouts',
      what: 'payouts',
      query,
      filters: html`${selectField('status', 'Status', PAYOUT_STATUSES, query.status)}
${selectField('method', 'Method', PAYOUT_METHODS, query.method, (method) => methodName.get(method) ?? method)}`,
      errors,
      kept,
      page,
      download: 'these payouts',
      caption: `Newest first, ${PER_PAGE} a page. Times are Johannesburg time.`,
      head: html`<th scope="col">Reference</th><th scope="col">Status</th><th scope="col">Method</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Fee</th><th scope="col">Batch</th><th scope="col">Created</th><th scope="col">Paid</th>`,
      columns: 8,
      rows,
    });
    sendPage(response, {
      title: 'Payouts',
      session,
      current: '/payouts',
      body: html`<h2>Account</h2>
<dl><dt>Available</dt><dd>${moneyFromDecimal(account.available, account.currency)}</dd>${account.debt !== '0.00' ? html`<dt>Debt</dt><dd>${moneyFromDecimal(account.debt, account.currency)}: a payout that failed earlier was paid by the provider after all; new payouts are refused until the account is funded</dd>` : ''}<dt>Reserved for payouts in flight</dt><dd>${moneyFromDecimal(account.reserved, account.currency)}</dd><dt>Fee per payout</dt><dd>${moneyFromDecimal(account.fee_per_payout, account.currency)}</dd></dl>
<h2>Methods</h2>
<table><thead><tr><th scope="col">Method</th><th scope="col">Available</th><th scope="col" class="num">Minimum</th><th scope="col" class="num">Maximum</th><th scope="col" class="num">Increment</th><th scope="col" class="num">Fee</th><th scope="col">Bank account needed</th></tr></thead>
<tbody>${methods.map((method) => html`<tr><td>${method.name} <code>${method.method}</code></td><td>${method.available ? 'yes' : 'no'}</td><td class="num">${moneyFromDecimal(method.minimum)}</td><td class="num">${moneyFromDecimal(method.maximum)}</td><td class="num">${moneyFromDecimal(method.increment)}</td><td class="num">${moneyFromDecimal(method.fee)}</td><td>${method.requires_bank_account ? 'yes' : 'no'}</td></tr>`)}</tbody></table>
<h2>Payouts</h2>
${list}`,
    }, valid ? 200 : 400);
  }

  /** The payouts the list's filters select, every page of them, as the API's payouts CSV (same columns, same service as GET /api/v1/exports/payouts). */
  @Get('payouts/download')
  async downloadPayouts(@Query() query: ListQuery, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const { filter, errors } = payoutFilterOf(query);
    if (Object.keys(errors).length > 0) return response.redirect(303, `/payouts?${queryOf({ status: query.status, method: query.method, from: query.from, to: query.to })}`);
    await streamCsv(response, exportName('payouts', filter), PAYOUT_CSV_HEADER, this.lists.payoutCsvRows(session.vendorId, filter));
  }

  @Get('payouts/view')
  async payout(@Query('reference') reference: string | undefined, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const { payout, recipient } = await this.payouts.getPayoutWithRecipient(principalOf(session), typeof reference === 'string' ? reference : '');
    const methodName = (await this.methods.listMethodViews(session.vendorId)).find((method) => method.method === payout.method)?.name;
    sendPage(response, {
      title: `Payout ${payout.reference}`,
      session,
      current: '/payouts',
      body: html`<dl><dt>Status</dt><dd class="status-${payout.status}">${payout.status}${payout.status_reason ? ` (${payout.status_reason})` : ''}</dd>
<dt>Method</dt><dd>${methodName ?? payout.method} <code>${payout.method}</code></dd><dt>Amount</dt><dd>${moneyFromDecimal(payout.amount)}</dd><dt>Fee</dt><dd>${moneyFromDecimal(payout.fee)}</dd>
<dt>Merchant reference</dt><dd><code>${payout.merchant_reference}</code></dd><dt>Provider reference</dt><dd>${payout.provider_reference ?? '—'}</dd>
<dt>Created</dt><dd>${when(payout.created_at)}</dd><dt>Paid</dt><dd>${when(payout.paid_at)}</dd></dl>
<h2>Recipient</h2>
<p class="hint">Masked: enough to tell who and which account, never the full details. The identity number and date of birth are not shown.</p>
<dl id="recipient"><dt>Name</dt><dd>${recipient.name}</dd><dt>Phone</dt><dd>${recipient.phone}</dd><dt>Email</dt><dd>${recipient.email ?? '—'}</dd><dt>Identity document</dt><dd>${recipient.id_type === 'RSAID' ? 'South African ID' : 'Passport'}</dd>
${recipient.bank_account ? html`<dt>Bank</dt><dd>${recipient.bank_account.bank_name}</dd><dt>Account number</dt><dd>${recipient.bank_account.account_number}</dd><dt>Account name</dt><dd>${recipient.bank_account.account_name}</dd>` : ''}</dl>
<p class="hint">Voucher PINs are not shown in the dashboard; systems with the payouts:delivery scope read them through the API.</p>
<p><a href="/payouts">Back to payouts</a></p>`,
    });
  }
}
