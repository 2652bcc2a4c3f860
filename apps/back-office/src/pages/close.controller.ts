import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { SettlementCloseStatus, type SettlementDayView } from '#settlement';
import { html, when, type SafeHtml } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { sendPage } from '../web/layout.js';
import { sessionOf, type StaffRequest } from '../web/staff-request.js';

const STATUS_WORDS: Record<SettlementDayView['status'], string> = { expected: 'Report awaited', missing: 'Report missing', fetched: 'Report in, not closed', closed: 'Closed' };

function blockersOf(day: SettlementDayView): SafeHtml {
  const items: SafeHtml[] = [];
  if (day.blockers.report === 'missing') items.push(html`<li>The report is missing: its deadline (${when(day.deadline_at)}) passed</li>`);
  if (day.blockers.report === 'awaited') items.push(html`<li>The report is not in yet (due by ${when(day.deadline_at)})</li>`);
  if (day.blockers.day_not_over) items.push(html`<li>The day is not over</li>`);
  if (day.blockers.unmatched_lines > 0) items.push(html`<li>${day.blockers.unmatched_lines} line${day.blockers.unmatched_lines === 1 ? '' : 's'} not matched yet</li>`);
  for (const exception of day.blockers.open_exceptions) items.push(html`<li>Open exception <a href="/exceptions/${exception.id}">${exception.kind} <code>${exception.id.slice(0, 8)}</code></a></li>`);
  return items.length === 0 ? html`<p>Nothing blocks it: it closes on the worker's next run.</p>` : html`<p>Blocked by:</p><ul>${items}</ul>`;
}

function openDay(day: SettlementDayView): SafeHtml {
  const fetched = day.fetched_at === null ? html`not fetched` : html`fetched ${when(day.fetched_at)}`;
  const error = day.last_error === null || day.fetched_at !== null ? html`` : html` Last error: <span class="detail">${day.last_error}</span>`;
  return html`<li><strong>${day.provider}</strong>: ${STATUS_WORDS[day.status]} (${fetched}, ${day.attempts} attempt${day.attempts === 1 ? '' : 's'}).${error}${blockersOf(day)}</li>`;
}

/** One report date: its provider-days not closed, each with what blocks it, then those closed. */
function dateSection(date: string, days: SettlementDayView[]): SafeHtml {
  const closed = days.filter((day) => day.status === 'closed');
  const open = days.filter((day) => day.status !== 'closed');
  const closedLine = closed.length === 0 ? html`` : html`<p>Closed: ${closed.map((day, index) => html`${index > 0 ? ', ' : ''}${day.provider}`)}.</p>`;
  return html`<section><h2>${date}: ${closed.length} of ${days.length} closed</h2>${open.length === 0 ? html`` : html`<ul class="detail-items">${open.map(openDay)}</ul>`}${closedLine}</section>`;
}

/**
 * The daily close (docs/RECONCILIATION.md, "Closing a day"): every provider-day not closed yet,
 * and those closed in the last days, newest first, with what blocks each and links to its open
 * exceptions. Read only: a day closes by itself on the worker's run once nothing blocks it.
 */
@Controller('close')
export class CloseController {
  constructor(private readonly status: SettlementCloseStatus) {}

  @Get()
  @RequireStaffPermission('queues:read')
  async page(@Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const days = await this.status.list();
    const blocked = days.filter((day) => day.blocked).length;
    const summary = html`<p>${blocked} provider-day${blocked === 1 ? '' : 's'} blocked; days closed in the last ${SettlementCloseStatus.CLOSED_SHOWN_DAYS} days are listed too. A day closes when its report is in, every line is matched and every exception for it is resolved; its per-vendor balances are then written.</p>`;
    const dates = [...new Set(days.map((day) => day.report_date))];
    const body =
      days.length === 0
        ? html`<p>No provider-day is expected yet: the worker records each day when its schedule first covers it.</p>`
        : html`${summary}${dates.map((date) => dateSection(date, days.filter((day) => day.report_date === date)))}`;
    sendPage(response, { title: 'Close', session: sessionOf(request), current: '/close', body });
  }
}
