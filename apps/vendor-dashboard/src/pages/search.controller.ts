import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { UUID_PATTERN } from '#common';
import { roleAllows, type DashboardSession } from '#dashboard';
import { PayoutListsService } from '#payout';
import { PurchaseStatementService } from '#purchase';
import { CurrentSession, errorSummary, html, money, when } from '#web';
import { sendPage } from '../web/layout.js';

/** How many matches each kind shows; the lists' own filters go further. */
const MATCHES = 20;
/** What a reference or id may contain (both gateways' reference characters). */
const SEARCHABLE = /^[A-Za-z0-9_.:/-]{1,128}$/;

/** One box for a reference (or its start) or an id, across purchases, payouts and batches the role may see. */
@Controller('search')
export class SearchController {
  constructor(
    private readonly purchases: PurchaseStatementService,
    private readonly payouts: PayoutListsService,
  ) {}

  @Get()
  async page(@Query() query: { q?: string }, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const text = (query.q ?? '').trim();
    const errors: Record<string, string[]> = {};
    if (text !== '' && !SEARCHABLE.test(text)) errors.q = ['Enter a reference or an id: letters, digits and . _ : / - only.'];
    const searching = text !== '' && Object.keys(errors).length === 0;
    const vendorId = session.vendorId;
    const purchases = searching && roleAllows(session.role, 'purchases:read') ? await this.purchases.search(vendorId, text, MATCHES) : null;
    const canPayouts = searching && roleAllows(session.role, 'payouts:read');
    const payouts = canPayouts ? await this.payoutMatches(vendorId, text) : null;
    const batches = canPayouts ? (await this.payouts.batches(vendorId, { referencePrefix: text, perPage: MATCHES })).items : null;
    const found = (purchases?.length ?? 0) + (payouts?.length ?? 0) + (batches?.length ?? 0);
    sendPage(response, {
      title: 'Search',
      session,
      current: '/search',
      body: html`${errorSummary(errors)}
<form method="get" action="/search" role="search" aria-label="Search by reference or id">
<label for="q">Reference (or its start) or id</label>
<input id="q" name="q" type="search" value="${text}" maxlength="128" autocomplete="off">
<button type="submit">Search</button></form>
${searching ? html`<p role="status">${found === 0 ? 'Nothing matches.' : `${found} found.`}</p>` : ''}
${purchases?.length
  ? html`<h2>Purchases</h2><table><caption>Newest first</caption><thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col">Product</th><th scope="col" class="num">Charge</th><th scope="col">Created</th></tr></thead>
<tbody>${purchases.map((row) => html`<tr><td><a href="/purchases/${row.id}">${row.reference}</a></td><td>${row.status}</td><td>${row.productName} (${row.operatorName})</td><td class="num">${money(row.chargeCents)}</td><td>${when(row.createdAt)}</td></tr>`)}</tbody></table>`
  : ''}
${payouts?.length
  ? html`<h2>Payouts</h2><table><caption>Newest first</caption><thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col">Method</th><th scope="col" class="num">Amount</th><th scope="col">Created</th></tr></thead>
<tbody>${payouts.map((row) => html`<tr><td><a href="/payouts/view?reference=${encodeURIComponent(row.reference)}">${row.reference}</a></td><td>${row.status}</td><td>${row.method}</td><td class="num">ZAR ${row.amount}</td><td>${when(row.created_at)}</td></tr>`)}</tbody></table>`
  : ''}
${batches?.length
  ? html`<h2>Batches</h2><table><caption>Newest first</caption><thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col" class="num">Items</th><th scope="col" class="num">Total</th><th scope="col">Created</th></tr></thead>
<tbody>${batches.map((row) => html`<tr><td><a href="/batches/view?reference=${encodeURIComponent(row.reference)}">${row.reference}</a></td><td>${row.status}</td><td class="num">${row.item_count}</td><td class="num">ZAR ${row.total_amount}</td><td>${when(row.created_at)}</td></tr>`)}</tbody></table>`
  : ''}`,
    });
  }

  /** Payouts by reference prefix, and the one payout whose id it is. */
  private async payoutMatches(vendorId: string, text: string) {
    const byReference = (await this.payouts.payouts(vendorId, { referencePrefix: text, perPage: MATCHES })).items;
    if (!UUID_PATTERN.test(text)) return byReference;
    const byId = (await this.payouts.payoutById(vendorId, text.toLowerCase())) ?? null;
    return byId && !byReference.some((row) => row.id === byId.id) ? [byId, ...byReference] : byReference;
  }
}
