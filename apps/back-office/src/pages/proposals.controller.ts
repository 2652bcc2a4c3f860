import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ValidationFailedError } from '#common';
import type { Response } from 'express';
import { formatCents } from '#money';
import { debtOf, PayoutLedgerService } from '#payout';
import { PurchaseSpendControlsService } from '#purchase';
import { ExceptionDesk, FourEyes, requireReason, ReviewQueues, StaffAccounts, StaffAuditLog, type Proposal, type StaffSession } from '#staff';
import { errorSummary, html, money, when, type SafeHtml } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { auditTable } from '../web/audit-table.js';
import { confirmationBody, isConfirmed } from '../web/form-action.js';
import { csrfField, sendPage } from '../web/layout.js';
import { CurrentSession, deciderOf, sessionOf, type StaffRequest } from '../web/staff-request.js';

/** Proposals whose approval moves money or changes what a vendor may spend: approved in two steps, with a reason. */
const MONEY_KINDS = new Set(['payout.fund', 'limits.set', 'purchase.resolve', 'payout.resolve', 'exception.resolve']);

/** What approving does, in words, for the confirmation step. */
function consequencesOf(proposal: Proposal): SafeHtml {
  const params = proposal.params;
  switch (proposal.kind) {
    case 'payout.fund':
      return html`Credit <strong>ZAR ${String(params.amount)}</strong> to the payout account of <strong>${String(params.vendor_name)}</strong>; they can pay it out at once.`;
    case 'limits.set':
      return html`Change the spend limits of <strong>${String(params.vendor_name)}</strong> to the values below; their next purchase is checked against them.`;
    case 'purchase.resolve':
      return html`Resolve purchase <strong>${String(params.reference)}</strong> as <strong>${String(params.outcome)}</strong>: ${params.outcome === 'failed' ? 'the vendor’s daily allowance is given back and the vendor is told it failed' : 'the vendor is told it completed and it is watched for reversal'}.`;
    case 'payout.resolve':
      return html`Resolve payout <strong>${String(params.reference)}</strong> as <strong>${String(params.outcome)}</strong>: ${params.outcome === 'failed' ? 'its reserved amount and fee go back to the vendor’s available funds' : 'its reserved amount and fee are settled as paid out'}.`;
    case 'exception.resolve':
      return html`Resolve the <strong>${String(params.exception_kind)}</strong> exception as <strong>${String(params.resolution)}</strong> and ${params.entry_kind === 'adjust_credit' ? 'credit' : 'debit'} <strong>ZAR ${String(params.amount)}</strong> ${params.entry_kind === 'adjust_credit' ? 'to' : 'from'} the payout account of <strong>${String(params.vendor_name)}</strong> (<code>${String(params.entry_kind)}</code>): their available funds change at once.`;
    default:
      return html`Apply: ${proposal.kind}.`;
  }
}

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
    private readonly ledger: PayoutLedgerService,
    private readonly spendControls: PurchaseSpendControlsService,
    private readonly queues: ReviewQueues,
    private readonly accounts: StaffAccounts,
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
  async approve(@Param('id') id: string, @Body() form: { note?: string; reason?: string; confirmed?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    // The kind's own approve permission (money or staff) is checked by FourEyes: 403 for the wrong role.
    let note = typeof form.note === 'string' && form.note.trim() !== '' ? form.note.trim().slice(0, 2000) : null;
    const found = await this.fourEyes.get(id);
    if (MONEY_KINDS.has(found.kind) && found.status === 'pending' && this.fourEyes.mayDecide(found, sessionOf(request))) {
      // Money moves on approval: a second step says what will happen, and the approver's reason is required.
      if (!isConfirmed(form)) return this.confirmApproval(response, request, found, 200, html``, form.note);
      try {
        note = requireReason(form.reason).slice(0, 2000);
      } catch (error) {
        if (!(error instanceof ValidationFailedError)) throw error;
        return this.confirmApproval(response, request, found, 400, errorSummary(error.fieldErrors), form.reason);
      }
    }
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

  private async confirmApproval(response: Response, request: StaffRequest, proposal: Proposal, status: number, errors: SafeHtml, reason: string | undefined): Promise<void> {
    const session = sessionOf(request);
    const title = `Approve: ${this.fourEyes.describe(proposal)}`;
    sendPage(response, {
      title,
      session,
      current: '/proposals',
      body: html`${errors}${confirmationBody(session, {
        title,
        consequences: html`${consequencesOf(proposal)} This is done at once and cannot be withdrawn; proposed by ${proposal.proposedByEmail} because: “${proposal.reason}”.`,
        action: `/proposals/${proposal.id}/approve`,
        fields: {},
        reason,
        reasonLabel: 'Why you approve (what you checked; recorded in the staff audit)',
        button: 'Approve and apply',
        cancel: `/proposals/${proposal.id}`,
      })}${await this.correctionContext(proposal)}${await this.evidence(proposal)}`,
    }, status);
  }

  /** The current values beside the proposed ones, and what the approver needs to check. */
  private async evidence(proposal: Proposal): Promise<SafeHtml> {
    const params = proposal.params;
    const compare = (rows: [string, SafeHtml | string, SafeHtml | string][]) =>
      html`<table><caption>Now and after approval</caption><thead><tr><th scope="col"></th><th scope="col">Now</th><th scope="col">If approved</th></tr></thead><tbody>${rows.map(([label, now, after]) => html`<tr><th scope="row">${label}</th><td>${now}</td><td>${after}</td></tr>`)}</tbody></table>`;
    switch (proposal.kind) {
      case 'payout.fund': {
        const balances = await this.ledger.balances(proposal.subjectId);
        const amount = BigInt(String(params.amount_cents));
        return html`<h2>Evidence</h2>${compare([
          ['Payout funds available', money(balances.availableCents), money(balances.availableCents + amount)],
          ['Reserved for open payouts', money(balances.reservedCents), money(balances.reservedCents)],
        ])}<p class="hint">Check the deposit named in the reason on the bank statement before approving.</p>`;
      }
      case 'limits.set': {
        const limits = await this.spendControls.limitsFor(proposal.subjectId);
        const zar = (minor: unknown) => (minor === null || minor === undefined ? 'not set' : `ZAR ${formatCents(BigInt(String(minor)))}`);
        const whole = (value: unknown) => (value === null || value === undefined ? 'not set' : String(value));
        return html`<h2>Evidence</h2>${compare([
          ['Daily cap', zar(limits.daily_cap_minor), zar(params.daily_cap_minor)],
          ['Per purchase maximum', zar(limits.transaction_max_minor), zar(params.transaction_max_minor)],
          ['Purchases per window', whole(limits.velocity_count), whole(params.velocity_count)],
          ['Window (seconds)', whole(limits.velocity_window_seconds), whole(params.velocity_window_seconds)],
          ['Used today', zar(limits.used_today_minor), zar(limits.used_today_minor)],
        ])}`;
      }
      case 'purchase.resolve': {
        const { item, history } = await this.queues.purchase(proposal.subjectId);
        return html`<h2>Evidence</h2>${compare([
          ['Status', item.status, String(params.outcome)],
          ['Error code the vendor sees', item.errorCode ?? '—', params.outcome === 'failed' ? 'RESOLVED_BY_STAFF' : '—'],
          ['What the vendor reads', '—', `resolved by staff: ${typeof params.vendor_message === 'string' ? params.vendor_message : 'Resolved by our support team after checking with the provider.'}`],
        ])}<dl class="facts"><dt>Vendor</dt><dd>${item.vendorName}</dd><dt>Amount</dt><dd>${money(item.chargeCents, item.currency)}</dd>
<dt>Submitted to the provider</dt><dd>${item.submissionAttemptedAt ? html`${when(item.submissionAttemptedAt)}, answer: ${item.submissionOutcome ?? 'none'}` : 'never'}</dd>
<dt>Provider's last status</dt><dd>${item.providerStatus ?? '—'}</dd><dt>Last lookup</dt><dd>${when(item.lastCheckedAt)}${item.notFoundStreak > 0 ? html` (not found ${item.notFoundStreak}× in a row)` : ''}</dd></dl>
<h3>Provider trail</h3><table><thead><tr><th scope="col">When</th><th scope="col">Move</th><th scope="col">Provider status</th><th scope="col">Why</th></tr></thead><tbody>${history.map(
          (event) => html`<tr><td>${when(event.created_at)}</td><td>${event.from_status ?? 'new'} → ${event.to_status}</td><td>${event.provider_status ?? '—'}</td><td>${event.reason}</td></tr>`,
        )}</tbody></table>`;
      }
      case 'payout.resolve': {
        const { item, contacts } = await this.queues.payout(proposal.subjectId);
        const balances = await this.ledger.balances(item.vendorId);
        const hold = item.amountCents + item.feeCents;
        return html`<h2>Evidence</h2>${compare([
          ['Status', item.status, String(params.outcome)],
          ['Reserved for this payout', money(hold), money(0n)],
          ['Vendor funds available', money(balances.availableCents), params.outcome === 'failed' ? money(balances.availableCents + hold) : money(balances.availableCents)],
        ])}<dl class="facts"><dt>Vendor</dt><dd>${item.vendorName}</dd><dt>Method</dt><dd>${item.method}</dd><dt>Provider reference</dt><dd>${item.providerReference ?? '—'}</dd></dl>
<h3>Provider trail</h3><table><thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Outcome</th><th scope="col">HTTP</th><th scope="col">Summary</th></tr></thead><tbody>${contacts.map(
          (contact) => html`<tr><td>${when(contact.at)}</td><td>${contact.kind}</td><td>${contact.outcome}</td><td>${contact.httpStatus ?? '—'}</td><td>${contact.summary ?? '—'}</td></tr>`,
        )}</tbody></table>`;
      }
      case 'staff.role':
        return html`<h2>Evidence</h2>${compare([['Role', String(params.from), String(params.role)]])}`;
      case 'staff.enable': {
        const user = await this.accounts.get(proposal.subjectId);
        return html`<h2>Evidence</h2>${compare([['Account', user.disabledAt ? `disabled ${when(user.disabledAt)}` : 'active', `active, as ${user.role}`]])}`;
      }
      case 'staff.create':
        return html`<h2>Evidence</h2>${compare([['Account', 'none', `${String(params.email)} as ${String(params.role)}`]])}`;
      default:
        return html``;
    }
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
${MONEY_KINDS.has(proposal.kind) ? html`<p class="hint">Approving moves money: the next page says what will happen and asks why you approve.</p>` : html`<label for="approve-note">Note (optional)</label><textarea id="approve-note" name="note"></textarea>`}
<p><button type="submit">${MONEY_KINDS.has(proposal.kind) ? 'Approve…' : 'Approve'}</button></p></form>
<form method="post" action="/proposals/${proposal.id}/reject">${csrfField(session)}
<label for="reject-note">Why reject</label><textarea id="reject-note" name="note" required></textarea>
<p><button type="submit" class="danger">Reject</button></p></form>`
          : mine
            ? html`<p>You proposed this: another person must approve it.</p><form method="post" action="/proposals/${proposal.id}/withdraw">${csrfField(session)}<button type="submit" class="secondary">Withdraw</button></form>`
            : html`<p>Your role (${session.role}) cannot decide this proposal.</p>`;
    const evidence = proposal.status === 'pending' ? await this.evidence(proposal) : html``;
    sendPage(response, {
      title: `Proposal: ${this.fourEyes.describe(proposal)}`,
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
</dl>${correction}${evidence}${actions}<h2>Audit records of the subject</h2>${auditTable(records)}`,
    }, status);
  }
}
