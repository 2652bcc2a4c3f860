import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ExceptionDesk, FourEyes, ReviewQueues } from '#staff';
import { html } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { sendPage } from '../web/layout.js';
import { sessionOf, type StaffRequest } from '../web/staff-request.js';
import { formatAge } from '../web/age.js';

/** What waits for staff: the two review queues' and the open exceptions' depth and age, and the proposals waiting for a second person. */
@Controller()
export class HomeController {
  constructor(
    private readonly queues: ReviewQueues,
    private readonly fourEyes: FourEyes,
    private readonly exceptions: ExceptionDesk,
  ) {}

  @Get()
  @RequireStaffPermission('queues:read')
  async overview(@Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const [depths, pending, exceptions] = await Promise.all([this.queues.depths(), this.fourEyes.list({ status: 'pending' }), this.exceptions.depth()]);
    sendPage(response, {
      title: 'Overview',
      session: sessionOf(request),
      current: '/',
      body: html`<table><thead><tr><th scope="col">Queue</th><th scope="col" class="num">Items</th><th scope="col">Oldest waiting</th></tr></thead><tbody>
<tr><td><a href="/queues/purchases">Purchases in review</a></td><td class="num">${depths.purchases.count}</td><td>${depths.purchases.count === 0 ? '—' : formatAge(depths.purchases.oldestAgeSeconds)}</td></tr>
<tr><td><a href="/queues/payouts">Payouts in needs_review</a></td><td class="num">${depths.payouts.count}</td><td>${depths.payouts.count === 0 ? '—' : formatAge(depths.payouts.oldestAgeSeconds)}</td></tr>
<tr><td><a href="/exceptions">Open reconciliation exceptions</a></td><td class="num">${exceptions.count}</td><td>${exceptions.count === 0 ? '—' : formatAge(exceptions.oldestAgeSeconds)}</td></tr>
</tbody></table>
<p><a href="/proposals">${pending.length} proposal${pending.length === 1 ? '' : 's'} waiting for a second person</a></p>`,
    });
  }
}
