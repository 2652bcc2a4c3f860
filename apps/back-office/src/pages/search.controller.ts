import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { isSearchable, SEARCH_MATCHES, SEARCH_MAX_LENGTH, StaffSearch, type StaffSearchResults } from '#staff';
import { errorSummary, html, money, when, type SafeHtml } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { sendPage } from '../web/layout.js';
import { sessionOf, type StaffRequest } from '../web/staff-request.js';

/** One kind's matches: a heading with an id the tests and the skip links can name, and its table. */
function group(id: string, title: string, count: number, head: SafeHtml, rows: SafeHtml[]): SafeHtml {
  if (count === 0) return html``;
  return html`<h2 id="found-${id}">${title} (${count}${count === SEARCH_MATCHES ? ', the newest shown' : ''})</h2>
<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

function results(found: StaffSearchResults): SafeHtml {
  const th = (label: string, numeric = false) => html`<th scope="col"${numeric ? html` class="num"` : ''}>${label}</th>`;
  return html`${group('purchases', 'Purchases', found.purchases.length, html`${th('Reference')}${th('Vendor')}${th('Status')}${th('Charge', true)}${th('Created')}`, found.purchases.map(
    (row) => html`<tr><td><a href="/queues/purchases/${row.id}">${row.reference}</a></td><td><a href="/vendors/${row.vendorId}">${row.vendorName}</a></td><td class="status-${row.status}">${row.status}</td>
<td class="num">${money(row.chargeCents, row.currency)}</td><td>${when(row.createdAt)}</td></tr>`,
  ))}
${group('payouts', 'Payouts', found.payouts.length, html`${th('Reference')}${th('Vendor')}${th('Status')}${th('Method')}${th('Amount', true)}${th('Created')}`, found.payouts.map(
    (row) => html`<tr><td><a href="/queues/payouts/${row.id}">${row.reference}</a></td><td><a href="/vendors/${row.vendorId}">${row.vendorName}</a></td><td class="status-${row.status}">${row.status}</td>
<td>${row.method}</td><td class="num">${money(row.amountCents)}</td><td>${when(row.createdAt)}</td></tr>`,
  ))}
${group('batches', 'Batches', found.batches.length, html`${th('Reference')}${th('Vendor')}${th('Items', true)}${th('Total', true)}${th('Created')}`, found.batches.map(
    (row) => html`<tr><td><a href="/vendors/${row.vendorId}/payouts?batch=${encodeURIComponent(row.reference)}">${row.reference}</a></td><td><a href="/vendors/${row.vendorId}">${row.vendorName}</a></td>
<td class="num">${row.itemCount}</td><td class="num">${money(row.totalAmountCents)}</td><td>${when(row.createdAt)}</td></tr>`,
  ))}
${group('vendors', 'Vendors', found.vendors.length, html`${th('Name')}${th('Vendor id')}${th('Released')}`, found.vendors.map(
    (vendor) => html`<tr><td><a href="/vendors/${vendor.id}">${vendor.name}</a></td><td><code>${vendor.id}</code></td><td>${vendor.productionReleasedAt ? when(vendor.productionReleasedAt) : 'no'}</td></tr>`,
  ))}
${group('exceptions', 'Reconciliation exceptions', found.exceptions.length, html`${th('Kind')}${th('Vendor')}${th('Record')}${th('Status')}${th('Raised')}`, found.exceptions.map(
    (item) => html`<tr><td><a href="/exceptions/${item.id}">${item.kind}</a></td><td>${item.vendorName ?? '—'}</td><td>${item.recordReference ? html`${item.domain} ${item.recordReference}` : item.domain}</td>
<td>${item.status}</td><td>${when(item.raisedAt)}</td></tr>`,
  ))}`;
}

/**
 * One search box across vendors (docs/BACK-OFFICE.md, "Search"): a purchase, payout or batch by
 * id or reference (or its start), a vendor by id or a part of its name, an exception by id;
 * matches grouped by kind, each linked to its page.
 */
@Controller('search')
export class SearchController {
  constructor(private readonly search: StaffSearch) {}

  @Get()
  @RequireStaffPermission('queues:read')
  async page(@Query('q') q: unknown, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const text = typeof q === 'string' ? q.trim() : '';
    const errors: Record<string, string[]> = {};
    if (text !== '' && !isSearchable(text)) errors.q = [`Enter an id, a reference or a name: at most ${SEARCH_MAX_LENGTH} characters, no control characters.`];
    const found = text !== '' && Object.keys(errors).length === 0 ? await this.search.search(text) : null;
    const count = found ? Object.values(found).reduce((sum: number, rows: unknown[]) => sum + rows.length, 0) : 0;
    sendPage(response, {
      title: 'Search',
      session: sessionOf(request),
      current: '/search',
      body: html`${errorSummary(errors)}
<form method="get" action="/search" role="search" aria-label="Search the back-office">
<label for="q">Id, reference (or its start), or a vendor's name</label>
<p class="hint" id="q-hint">Purchases, payouts and batches by id or reference; vendors by id or name; reconciliation exceptions by id.</p>
<input id="q" name="q" type="search" value="${text}" maxlength="${String(SEARCH_MAX_LENGTH)}" autocomplete="off" aria-describedby="q-hint">
<button type="submit">Search</button></form>
${found ? html`<p role="status" id="search-count">${count === 0 ? `Nothing matches “${text}”.` : `${count} found for “${text}”.`}</p>${results(found)}` : ''}`,
    }, Object.keys(errors).length ? 400 : 200);
  }
}
