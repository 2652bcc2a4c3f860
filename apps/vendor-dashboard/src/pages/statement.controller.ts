import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { johannesburgDayOf, streamCsv } from '#common';
import type { DashboardSession } from '#dashboard';
import { PayoutStatementService, STATEMENT_CSV_HEADER, type StatementLineView, type StatementSummaryView } from '#payout';
import { CurrentSession, errorSummary, html, isoDayOrUndefined, moneyFromDecimal, type SafeHtml, when } from '#web';
import { RequirePermission } from '../web/access.js';
import { sendPage } from '../web/layout.js';

const CATEGORY_LABELS: Record<string, string> = {
  funding: 'Funding',
  payout_reserved: 'Payout reserved',
  payout_settled: 'Payout settled',
  fee: 'Fee',
  release: 'Released',
  reversal: 'Reversal',
  adjustment: 'Adjustment',
};

const PAGE_SIZE = 50;
/** The dashboard's one money style (ZAR 98,707.16), from the API's exact decimal strings. */
const zar = (decimal: string) => moneyFromDecimal(decimal);

interface Range {
  from: string;
  to: string;
  errors: Record<string, string[]>;
}

/** Today by default; a start after the end is refused, like the API. */
function rangeOf(query: { from?: string; to?: string }): Range {
  const today = johannesburgDayOf(new Date());
  const errors: Record<string, string[]> = {};
  const to = isoDayOrUndefined(query.to) ?? today;
  const from = isoDayOrUndefined(query.from) ?? to;
  if (query.from && !isoDayOrUndefined(query.from)) errors.from = ['Use a date such as 2026-01-31.'];
  if (query.to && !isoDayOrUndefined(query.to)) errors.to = ['Use a date such as 2026-01-31.'];
  if (from > to) errors.to = ['The end date is before the start date.'];
  return { from, to, errors };
}

/** The payout account statement: the same service, figures and CSV as GET /api/v1/statement. */
@Controller('statement')
@RequirePermission('payouts:read')
export class StatementController {
  constructor(private readonly statement: PayoutStatementService) {}

  @Get()
  async page(@Query() query: { from?: string; to?: string; cursor?: string }, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const { from, to, errors } = rangeOf(query);
    const valid = Object.keys(errors).length === 0;
    const days = { dateFrom: from, dateTo: to };
    const summary = valid ? await this.statement.summary(session.vendorId, days) : null;
    let page: Awaited<ReturnType<PayoutStatementService['page']>> | null = null;
    if (valid) {
      try {
        page = await this.statement.page(session.vendorId, { ...days, order: 'desc', perPage: PAGE_SIZE, cursor: query.cursor || undefined });
      } catch {
        errors.cursor = ['That page link is no longer valid; showing the newest lines.'];
        page = await this.statement.page(session.vendorId, { ...days, order: 'desc', perPage: PAGE_SIZE });
      }
    }
    const download = `/statement/download?${new URLSearchParams({ from, to }).toString()}`;
    const next = page?.next_cursor ? `/statement?${new URLSearchParams({ from, to, cursor: page.next_cursor }).toString()}` : null;
    sendPage(response, {
      title: 'Statement',
      session,
      current: '/statement',
      body: html`<p>Every movement of your prefunded payout account, with the balances after it. Days are Johannesburg days.</p>
${errorSummary(errors)}
<form method="get" action="/statement" class="filters" aria-label="Statement period">
<div><label for="from">From</label><input id="from" name="from" type="date" value="${from}"></div>
<div><label for="to">To</label><input id="to" name="to" type="date" value="${to}"></div>
<div><button type="submit">Show</button></div></form>
${summary ? summaryPart(summary, download) : ''}
${page ? linesTable(page.items, next, Boolean(query.cursor)) : ''}`,
    });
  }

  @Get('download')
  async download(@Query() query: { from?: string; to?: string }, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const { from, to, errors } = rangeOf(query);
    if (Object.keys(errors).length > 0) {
      response.redirect(303, `/statement?${new URLSearchParams({ from: query.from ?? '', to: query.to ?? '' }).toString()}`);
      return;
    }
    await streamCsv(response, `statement-${from}-${to}.csv`, STATEMENT_CSV_HEADER, this.statement.csvRows(session.vendorId, { dateFrom: from, dateTo: to }));
  }
}

function summaryPart(summary: StatementSummaryView, download: string): SafeHtml {
  return html`<h2>Summary</h2>
<table class="summary">
<caption>Opening and closing balances, and what moved, ${summary.date_from} to ${summary.date_to}</caption>
<thead><tr><th scope="col">Line</th><th scope="col">Count</th><th scope="col" class="num">Available</th><th scope="col" class="num">Reserved</th></tr></thead>
<tbody>
<tr><th scope="row">Opening balance</th><td></td><td class="num">${zar(summary.opening.available)}</td><td class="num">${zar(summary.opening.reserved)}</td></tr>
${summary.categories.map(
  (total) => html`<tr><th scope="row">${CATEGORY_LABELS[total.category] ?? total.category}</th><td>${total.count}</td><td class="num">${zar(total.available_change)}</td><td class="num">${zar(total.reserved_change)}</td></tr>`,
)}
<tr><th scope="row">Closing balance</th><td></td><td class="num">${zar(summary.closing.available)}</td><td class="num">${zar(summary.closing.reserved)}</td></tr>
</tbody></table>
<p><a href="${download}" download>Download the statement (CSV)</a></p>`;
}

function linesTable(lines: readonly StatementLineView[], next: string | null, paged: boolean): SafeHtml {
  if (lines.length === 0) return html`<h2>Lines</h2><p>No movements in these days.</p>`;
  return html`<h2>Lines</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Statement lines">
<table>
<caption>Newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">Category</th><th scope="col">Payout</th><th scope="col">Batch</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Available after</th><th scope="col" class="num">Reserved after</th></tr></thead>
<tbody>
${lines.map(
  (line) => html`<tr data-line="${line.id}"><td>${when(line.created_at)}</td><td>${CATEGORY_LABELS[line.category] ?? line.category}${line.kind === 'resettle' ? ' (correction)' : ''}</td>
<td>${line.payout_reference ?? '—'}</td><td>${line.batch_reference ?? '—'}</td><td class="num">${zar(signed(line))}</td><td class="num">${zar(line.available_after)}</td><td class="num">${zar(line.reserved_after)}</td></tr>`,
)}
</tbody></table></div>
<nav aria-label="Pages" class="pager">${paged ? html`<a href="/statement">Newest lines</a>` : ''}${next ? html`<a href="${next}">Older lines</a>` : ''}</nav>`;
}

/** The line's effect on `available` when it has one, else on `reserved`: money out shows a minus. */
function signed(line: StatementLineView): string {
  return line.available_change !== '0.00' ? line.available_change : line.reserved_change;
}
