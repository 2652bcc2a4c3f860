import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { debtOf } from '#payout';
import { ExceptionDesk, FourEyes, StaffAuditLog, type Proposal, type StaffSession } from '#staff';
import { html, money, when, type SafeHtml } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { auditTable } from '../web/audit-table.js';
import { csrfField, sendPage } from '../web/layout.js';
import { CurrentSession, deciderOf, sessionOf, type StaffRequest } from '../web/staff-request.js';

/** Where a proposal's subject is shown. */
export function subjectLink(proposal: Pick<Proposal, 'subjectType' | 'subjectId'>): SafeHtml {
  switch (proposal.subjectType) {
    case 'purchase':
    case 'payout':
      return html`<a href="/queues/${proposal.subjectType}s/${proposal.subjectId}">${proposal.subjectType} <code>${proposal.subjectId}</code></a>`;
    case 'vendor':
      return html`<a href="/vendors/${proposal.subjectId}">vendor <code>${proposal.subjectId}</code></a>`;
    case 'reconciliation_exception':
      return html`<a href="/exceptions/${proposal.subjectId}">exception <code>${proposal.subjectId}</code></a>`;
    default:
      return html`${proposal.subjectType} <code>${proposal.subjectId}</code>`;
  }
}

/**
 * Four-eyes proposals: every one waiting and the recent decisions. Approve and reject are
 * offered only to someone who may decide (never the proposer); the server checks again, and the
 * database a third time.
 */
@Controller('proposals')
export class ProposalsController {
  constructor(
    private readonly fourEyes: FourEyes,
    private readonly audit: StaffAuditLog,
    private readonly exceptions: ExceptionDesk,
  ) {}

  @Get()
  @RequireStaffPermission('queues:read')
  async list(@CurrentSession() session: StaffSession, @Res() response: Response): Promise<void> {
    const [pending, recent] = await Promise.all([this.fourEyes.list({ status: 'pending' }), this.fourEyes.list()]);
    const decided = recent.filter((proposal) => proposal.status !== 'pending').slice(0, 50);
    sendPage(response, {
      title: 'Proposals',
      session,
      current: '/proposals',
      body: html`<h2>Waiting for a second person (${pending.length})</h2>${this.table(pending, session)}<h2>Recently decided</h2>${this.table(decided, session)}`,
    });
  }

  @Get(':id')
  @RequireStaffPermission('queues:read')
  async detail(@Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.render(response, sessionOf(request), await this.fourEyes.get(id), 200);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @RequireStaffPermission('queues:read')
  async approve(@Param('id') id: string, @Body() form: { note?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    // The kind's own approve permission (money or staff) is checked by FourEyes: 403 for the wrong role.
    const note = typeof form.note === 'string' && form.note.trim() !== '' ? form.note.trim().slice(0, 2000) : null;
    const { proposal, executed } = await this.fourEyes.approve(id, deciderOf(request), note);
    const reveal = executed.reveal?.label === 'setup' ? this.setupNotice(request, executed.reveal.value) : html``;
    await this.render(response, sessionOf(request), proposal, 200, html`<p class="notice" role="status">Approved and done.</p>${reveal}`);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @RequireStaffPermission('queues:read')
  async reject(@Param('id') id: string, @Body() form: { note?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const proposal = await this.fourEyes.reject(id, deciderOf(request), typeof form.note === 'string' ? form.note.slice(0, 2000) : '');
    await this.render(response, sessionOf(request), proposal, 200, html`<p class="notice" role="status">Rejected.</p>`);
  }

  @Post(':id/withdraw')
  @HttpCode(200)
  @RequireStaffPermission('queues:read')
  async withdraw(@Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const proposal = await this.fourEyes.withdraw(id, deciderOf(request));
    await this.render(response, sessionOf(request), proposal, 200, html`<p class="notice" role="status">Withdrawn.</p>`);
  }

  private setupNotice(request: StaffRequest, secret: string): SafeHtml {
    const url = `${request.protocol}://${request.get('host') ?? 'localhost'}/setup?token=${secret}`;
    return html`<p>Give this one-time setup link to the new staff member (it works once, for 24 hours, and is not shown again):</p><p class="secret" id="setup-link">${url}</p>`;
  }

  private table(proposals: readonly Proposal[], session: StaffSession): SafeHtml {
    if (proposals.length === 0) return html`<p>None.</p>`;
    return html`<table><thead><tr><th scope="col">Proposed</th><th scope="col">What</th><th scope="col">Subject</th><th scope="col">Why</th><th scope="col">By</th><th scope="col">Status</th><th scope="col">Decided by</th></tr></thead>
<tbody>${proposals.map(
      (proposal) => html`<tr><td><a href="/proposals/${proposal.id}">${when(proposal.proposedAt)}</a></td><td>${this.fourEyes.describe(proposal)}</td><td>${subjectLink(proposal)}</td>
<td>${proposal.reason}</td><td>${proposal.proposedByEmail}${proposal.proposedBy === session.staffUserId ? ' (you)' : ''}</td><td class="status-${proposal.status}">${proposal.status}</td><td>${proposal.decidedByEmail ?? '—'}</td></tr>`,
    )}</tbody></table>`;
  }

  /** A correction's approver sees the exception, the vendor's account now and the entry proposed, with its effect. */
  private async correctionContext(proposal: Proposal): Promise<SafeHtml> {
    const proposed = await this.exceptions.proposedCorrection(proposal);
    if (!proposed) return html``;
    const { exception, balances } = proposed;
    const after = { availableCents: proposed.availableAfterCents };
    return html`<h2>The correction</h2><dl class="facts" id="correction">
<dt>Exception</dt><dd><a href="/exceptions/${exception.id}">${exception.kind}</a> (${exception.status}), raised ${when(exception.raisedAt)}${exception.recordReference ? html`, ${exception.domain} ${exception.recordReference} (${exception.recordStatus})` : ''}</dd>
<dt>Vendor</dt><dd>${exception.vendorName ?? '—'}</dd>
<dt>Payout account now</dt><dd>available ${money(balances.availableCents)}, reserved ${money(balances.reservedCents)}${debtOf(balances) > 0n ? html`, debt ${money(debtOf(balances))}` : ''}</dd>
<dt>${proposal.status === 'pending' ? 'Proposed entry' : 'Entry'}</dt><dd><code>${proposed.entryKind}</code> of ${money(proposed.amountCents)}${
      // Once decided, the balance above already holds the entry (or never will): no projection.
      proposal.status === 'pending' ? html`: available becomes ${money(proposed.availableAfterCents)}${debtOf(after) > 0n ? html` (<strong>a debt of ${money(debtOf(after))}</strong>)` : ''}` : html``
    }</dd>
</dl>`;
  }

  private async render(response: Response, session: StaffSession, proposal: Proposal, status: number, notice: SafeHtml = html``): Promise<void> {
    const [records, correction] = await Promise.all([this.audit.list({ subjectType: proposal.subjectType, subjectId: proposal.subjectId }), this.correctionContext(proposal)]);
    const mine = proposal.proposedBy === session.staffUserId;
    const actions =
      proposal.status !== 'pending'
        ? html``
        : this.fourEyes.mayDecide(proposal, session)
          ? html`<h2>Decide</h2>
<form method="post" action="/proposals/${proposal.id}/approve">${csrfField(session)}
<label for="approve-note">Note (optional)</label><textarea id="approve-note" name="note"></textarea>
<p><button type="submit">Approve</button></p></form>
<form method="post" action="/proposals/${proposal.id}/reject">${csrfField(session)}
<label for="reject-note">Why reject</label><textarea id="reject-note" name="note" required></textarea>
<p><button type="submit" class="danger">Reject</button></p></form>`
          : mine
            ? html`<p>You proposed this: another person must approve it.</p><form method="post" action="/proposals/${proposal.id}/withdraw">${csrfField(session)}<button type="submit" class="secondary">Withdraw</button></form>`
            : html`<p>Your role (${session.role}) cannot decide this proposal.</p>`;
    sendPage(response, {
      title: 'Proposal',
      session,
      current: '/proposals',
      body: html`${notice}<dl class="facts">
<dt>What</dt><dd>${this.fourEyes.describe(proposal)}</dd>
<dt>Subject</dt><dd>${subjectLink(proposal)}</dd>
<dt>Why</dt><dd>${proposal.reason}</dd>
<dt>Proposed by</dt><dd>${proposal.proposedByEmail}, ${when(proposal.proposedAt)}</dd>
<dt>Status</dt><dd class="status-${proposal.status}">${proposal.status}</dd>
<dt>Decided by</dt><dd>${proposal.decidedByEmail ? html`${proposal.decidedByEmail}, ${when(proposal.decidedAt)}` : '—'}</dd>
<dt>Decision note</dt><dd>${proposal.decisionNote ?? '—'}</dd>
</dl>${correction}${actions}<h2>Audit records of the subject</h2>${auditTable(records)}`,
    }, status);
  }
}
