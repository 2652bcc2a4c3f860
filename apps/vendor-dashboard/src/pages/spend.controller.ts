import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { johannesburgDayOf, johannesburgDayRange } from '#common';
import { PurchaseSalesSummaryService, PurchaseSpendControlsService, type SalesSummaryView } from '#purchase';
import { CurrentSession, errorSummary, html, isoDayOrUndefined, money, type SafeHtml } from '#web';
import type { DashboardSession } from '#dashboard';
import { RequirePermission } from '../web/access.js';
import { sendPage } from '../web/layout.js';

const DAY_MS = 86_400_000;
/** Longest range drawn day by day; the summary table has no such limit. */
const MAX_CHART_DAYS = 31;

function dayBefore(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);
}

@Controller('spend')
@RequirePermission('reports:read')
export class SpendController {
  constructor(
    private readonly spend: PurchaseSpendControlsService,
    private readonly reports: PurchaseSalesSummaryService,
    private readonly dataSource: DataSource,
  ) {}

  @Get()
  async page(@Query() query: { from?: string; to?: string }, @CurrentSession() session: DashboardSession, @Res() response: Response): Promise<void> {
    const today = johannesburgDayOf(new Date());
    const errors: Record<string, string[]> = {};
    const to = isoDayOrUndefined(query.to) ?? today;
    const from = isoDayOrUndefined(query.from) ?? dayBefore(to, 6);
    if (query.from && !isoDayOrUndefined(query.from)) errors.from = ['Use a date such as 2026-01-31.'];
    if (query.to && !isoDayOrUndefined(query.to)) errors.to = ['Use a date such as 2026-01-31.'];
    if (from > to) errors.to = ['The end date is before the start date.'];

    // The same figures as GET /limits and GET /reports/summary: the services, not a copy of their queries.
    const limits = await this.spend.limitsFor(session.vendorId);
    const velocityUsed =
      limits.velocity_window_seconds !== null ? await this.spend.admissionsSince(this.dataSource.manager, session.vendorId, new Date(Date.now() - limits.velocity_window_seconds * 1000)) : null;
    const summary = Object.keys(errors).length ? null : await this.reports.summary(session.vendorId, from, to);
    const days: { day: string; view: SalesSummaryView }[] = [];
    if (summary) {
      const span = Math.round((johannesburgDayRange(to).start.getTime() - johannesburgDayRange(from).start.getTime()) / DAY_MS) + 1;
      for (let offset = Math.min(span, MAX_CHART_DAYS) - 1; offset >= 0; offset--) {
        const day = dayBefore(to, offset);
        days.push({ day, view: await this.reports.summary(session.vendorId, day, day) });
      }
    }
    sendPage(response, {
      title: 'Spend',
      session,
      current: '/spend',
      body: html`<h2>Today (${limits.day}, Johannesburg)</h2>
${limits.purchases_paused ? html`<p class="notice">Purchases are paused${limits.paused_scope === 'global' ? ' for every vendor' : ''} by platform staff.</p>` : ''}
${
  limits.configured && limits.daily_cap_minor !== null
    ? html`<p><label for="daily-use">Used against the daily cap</label>
<meter id="daily-use" min="0" max="${limits.daily_cap_minor}" value="${limits.used_today_minor}" high="${Math.floor(limits.daily_cap_minor * 0.8)}">${money(limits.used_today_minor)}</meter>
${money(limits.used_today_minor)} of ${money(limits.daily_cap_minor)} used; ${money(limits.remaining_today_minor ?? 0)} left today.</p>`
    : html`<p>No spend controls are set for this account yet; purchases are refused until platform staff set them.</p>`
}
<dl>
<dt>Largest single purchase</dt><dd>${limits.transaction_max_minor === null ? '—' : money(limits.transaction_max_minor)}</dd>
<dt>Velocity</dt><dd>${limits.velocity_count === null ? '—' : `${velocityUsed} of ${limits.velocity_count} purchases in the last ${limits.velocity_window_seconds} seconds`}</dd>
</dl>
<h2>Sales</h2>
${errorSummary(errors)}
<form method="get" action="/spend" class="filters" aria-label="Report period">
<div><label for="from">From (Johannesburg day)</label><input id="from" name="from" type="date" value="${from}"></div>
<div><label for="to">To (Johannesburg day)</label><input id="to" name="to" type="date" value="${to}"></div>
<div><button type="submit">Show</button></div></form>
${summary ? summaryTable(summary) : ''}
${days.length ? chart(days) : ''}`,
    });
  }
}

function summaryTable(summary: SalesSummaryView): SafeHtml {
  return html`<table><caption class="hint">${summary.date_from} to ${summary.date_to}: sales by completion day, pending and review by admission day.</caption>
<thead><tr><th scope="col">Figure</th><th scope="col" class="num">Count</th><th scope="col" class="num">Amount</th></tr></thead>
<tbody><tr><th scope="row">Completed (gross)</th><td class="num">${summary.completed_count}</td><td class="num">${money(summary.completed_gross_minor)}</td></tr>
<tr><th scope="row">Reversed since</th><td class="num">${summary.reversed_count}</td><td class="num">${money(summary.reversed_gross_minor)}</td></tr>
<tr><th scope="row">Net</th><td class="num"></td><td class="num">${money(summary.net_minor)}</td></tr>
<tr><th scope="row">Pending</th><td class="num">${summary.pending_count}</td><td class="num"></td></tr>
<tr><th scope="row">In review</th><td class="num">${summary.review_count}</td><td class="num"></td></tr></tbody></table>`;
}

/** Net sales per day as an SVG bar chart; the figures are also in the table after it for screen readers. */
function chart(days: { day: string; view: SalesSummaryView }[]): SafeHtml {
  const width = 720;
  const height = 200;
  const gap = 4;
  const max = Math.max(1, ...days.map(({ view }) => view.net_minor));
  const barWidth = (width - gap * days.length) / days.length;
  const bars = days.map(({ day, view }, index) => {
    const barHeight = Math.round((Math.max(0, view.net_minor) / max) * (height - 20));
    const x = Math.round(index * (barWidth + gap));
    return html`<g><title>${day}: ${money(view.net_minor)}</title><rect x="${x}" y="${height - 20 - barHeight}" width="${Math.max(1, Math.floor(barWidth))}" height="${barHeight}" fill="#0b5cad"></rect>${
      days.length <= 14 ? html`<text x="${x}" y="${height - 4}" font-size="11" fill="#1b1f24">${day.slice(5)}</text>` : ''
    }</g>`;
  });
  return html`<figure><figcaption>Net sales per day, ${days[0].day} to ${days[days.length - 1].day} (highest ${money(max)})</figcaption>
<svg role="img" aria-labelledby="chart-title" viewBox="0 0 ${width} ${height}" width="100%" height="${height}"><title id="chart-title">Net sales per day</title>${bars}</svg></figure>
<table><caption class="hint">Net sales per day</caption><thead><tr><th scope="col">Day</th><th scope="col" class="num">Completed</th><th scope="col" class="num">Net</th></tr></thead>
<tbody>${days.map(({ day, view }) => html`<tr><td>${day}</td><td class="num">${view.completed_count}</td><td class="num">${money(view.net_minor)}</td></tr>`)}</tbody></table>`;
}
