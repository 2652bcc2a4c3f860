import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { PURCHASE_FAILURE_CODES, STAFF_RESOLUTION_STANDARD_MESSAGE } from '#purchase';
import { FourEyes, REVIEW_OUTCOMES, ReviewQueues, StaffAccounts, StaffAuditLog, staffRoleAllows, VENDOR_MESSAGE_MAX_LENGTH, type ItemNote, type ItemOwner, type Proposal, type ReviewDomain, type StaffSession } from '#staff';
import { html, money, when, type SafeHtml } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { formatAge } from '../web/age.js';
import { auditTable } from '../web/audit-table.js';
import { afterDecision, decisionForm, submitDecisionForm } from '../web/form-action.js';
import { notesSection, ownerFact, ownershipSection, type WorkedItemView } from '../web/item-work.js';
import { csrfField, sendPage } from '../web/layout.js';
import { deciderOf, sessionOf, type StaffRequest } from '../web/staff-request.js';
import { subjectLink } from './proposals.controller.js';

type Domain = 'purchases' | 'payouts';

const KIND: Record<Domain, string> = { purchases: 'purchase.resolve', payouts: 'payout.resolve' };
const SUBJECT: Record<Domain, ReviewDomain> = { purchases: 'purchase', payouts: 'payout' };

const isDomain = (domain: string): domain is Domain => domain === 'purchases' || domain === 'payouts';
const notFound = (response: Response, request: StaffRequest) => sendPage(response, { title: 'Not found', session: sessionOf(request), body: html`<p>There is nothing here.</p>` }, 404);

const ageSince = (since: Date) => formatAge((Date.now() - new Date(since).getTime()) / 1000);
const ownerCell = (owners: Map<string, ItemOwner>, id: string) => owners.get(id)?.ownerEmail ?? 'nobody';
const workedItem = (domain: Domain, id: string, owner: ItemOwner | null, open: boolean): WorkedItemView & { id: string } => ({
  id,
  path: `/queues/${domain}/${id}`,
  ownerStaffId: owner?.ownerStaffId ?? null,
  ownerEmail: owner?.ownerEmail ?? null,
  claimedAt: owner?.claimedAt ?? null,
  open,
});

/** What the vendor will read about a resolution: said on the form, so the note is written for the right reader. */
function vendorSees(domain: Domain): SafeHtml {
  if (domain === 'payouts') {
    return html`<p class="hint" id="vendor-sees">The vendor sees the payout as paid or failed with the reason <code>resolved_by_staff</code>. The internal note below is never shown to them.</p>`;
  }
  return html`<label for="vendor-message">Message to the vendor (optional)</label>
<p class="hint" id="vendor-message-hint">The vendor reads this in the purchase's history on their dashboard and through the API, as “resolved by staff: <em>your message</em>”. Left empty, they read “resolved by staff: ${STAFF_RESOLUTION_STANDARD_MESSAGE}” A purchase resolved as failed carries the error code <code>${PURCHASE_FAILURE_CODES.resolvedByStaff}</code>. The internal note below is never shown to them.</p>
<textarea id="vendor-message" name="vendor_message" maxlength="${String(VENDOR_MESSAGE_MAX_LENGTH)}" aria-describedby="vendor-message-hint"></textarea>`;
}

/**
 * The review queues: purchases in `review` and payouts in `needs_review`, oldest first, and each
 * item with what the provider said and when, its proposals and audit records. "Check the
 * provider now" queues the worker's own lookup; a resolution by hand is a four-eyes proposal.
 */
@Controller('queues')
export class QueuesController {
  constructor(
    private readonly queues: ReviewQueues,
    private readonly fourEyes: FourEyes,
    private readonly audit: StaffAuditLog,
    private readonly accounts: StaffAccounts,
  ) {}

  @Get('purchases')
  @RequireStaffPermission('queues:read')
  async purchases(@Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const items = await this.queues.purchases();
    const owners = await this.queues.owners('purchase', items.map((item) => item.id));
    const body = items.length === 0
      ? html`<p>No purchase is waiting for review.</p>`
      : html`<p>${items.length} purchase${items.length === 1 ? '' : 's'} in review, oldest first.</p>
<table><thead><tr><th scope="col">Waiting</th><th scope="col">Vendor</th><th scope="col">Reference</th><th scope="col" class="num">Amount</th><th scope="col">Submission</th><th scope="col">Provider said</th><th scope="col">Last checked</th><th scope="col">Owner</th></tr></thead>
<tbody>${items.map(
          (item) => html`<tr><td>${ageSince(item.waitingSince)}</td><td>${item.vendorName}</td><td><a href="/queues/purchases/${item.id}">${item.reference}</a></td>
<td class="num">${money(item.chargeCents, item.currency)}</td><td>${item.submissionOutcome ?? 'not submitted'}</td><td>${item.providerStatus ?? '—'}</td><td>${when(item.lastCheckedAt)}</td><td>${ownerCell(owners, item.id)}</td></tr>`,
        )}</tbody></table>`;
    sendPage(response, { title: 'Purchases in review', session: sessionOf(request), current: '/queues/purchases', body });
  }

  @Get('payouts')
  @RequireStaffPermission('queues:read')
  async payouts(@Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const items = await this.queues.payoutsInReview();
    const owners = await this.queues.owners('payout', items.map((item) => item.id));
    const body = items.length === 0
      ? html`<p>No payout is waiting for review.</p>`
      : html`<p>${items.length} payout${items.length === 1 ? '' : 's'} in needs_review, oldest first. Their funds stay reserved until resolved.</p>
<table><thead><tr><th scope="col">Waiting</th><th scope="col">Vendor</th><th scope="col">Reference</th><th scope="col">Method</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Fee</th><th scope="col">Next lookup</th><th scope="col">Owner</th></tr></thead>
<tbody>${items.map(
          (item) => html`<tr><td>${ageSince(item.waitingSince)}</td><td>${item.vendorName}</td><td><a href="/queues/payouts/${item.id}">${item.reference}</a></td><td>${item.method}</td>
<td class="num">${money(item.amountCents)}</td><td class="num">${money(item.feeCents)}</td><td>${when(item.nextPollAt)}</td><td>${ownerCell(owners, item.id)}</td></tr>`,
        )}</tbody></table>`;
    sendPage(response, { title: 'Payouts in review', session: sessionOf(request), current: '/queues/payouts', body });
  }

  @Get(':domain/:id')
  @RequireStaffPermission('queues:read')
  async item(@Param('domain') domain: string, @Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    if (!isDomain(domain)) return notFound(response, request);
    await this.renderer(domain)(response, sessionOf(request), id, 200);
  }

  @Post(':domain/:id/check')
  @HttpCode(200)
  @RequireStaffPermission('items:check')
  async check(@Param('domain') domain: string, @Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    if (!isDomain(domain)) return notFound(response, request);
    const requested = await this.queues.check(SUBJECT[domain], id, deciderOf(request));
    await this.renderer(domain)(response, sessionOf(request), id, 200, this.checkNotice(requested.scheduled));
  }

  @Post(':domain/:id/claim')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async claim(@Param('domain') domain: string, @Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.step(response, request, domain, id, (subject) => this.queues.claim(subject, id, deciderOf(request)));
  }

  @Post(':domain/:id/unclaim')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async unclaim(@Param('domain') domain: string, @Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.step(response, request, domain, id, (subject) => this.queues.unclaim(subject, id, deciderOf(request)));
  }

  @Post(':domain/:id/reassign')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async reassign(@Param('domain') domain: string, @Param('id') id: string, @Body() form: { owner?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.step(response, request, domain, id, (subject) => this.queues.reassign(subject, id, form.owner, deciderOf(request)));
  }

  @Post(':domain/:id/notes')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async note(@Param('domain') domain: string, @Param('id') id: string, @Body() form: { note?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.step(response, request, domain, id, (subject) => this.queues.note(subject, id, form.note, deciderOf(request)));
  }

  @Post(':domain/:id/propose')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async propose(
    @Param('domain') domain: string,
    @Param('id') id: string,
    @Body() form: { outcome?: string; reason?: string; vendor_message?: string },
    @Req() request: StaffRequest,
    @Res() response: Response,
  ): Promise<void> {
    if (!isDomain(domain)) return notFound(response, request);
    const params = domain === 'purchases' ? { outcome: form.outcome, vendor_message: form.vendor_message } : { outcome: form.outcome };
    await submitDecisionForm(
      response,
      async () => {
        // Only the item's owner proposes its resolution; proposing claims an item nobody owns.
        await this.queues.beforeProposal(SUBJECT[domain], id, form, deciderOf(request));
        return afterDecision({ applied: false, proposal: await this.fourEyes.propose(KIND[domain], id, params, form.reason, deciderOf(request)) }, '');
      },
      (status, notice) => this.renderer(domain)(response, sessionOf(request), id, status, notice),
    );
  }

  /** Runs one owner or notes step and returns to the item's page (303); a validation error shows it again with the message. */
  private async step(response: Response, request: StaffRequest, domain: string, id: string, work: (subject: ReviewDomain) => Promise<void>): Promise<void> {
    if (!isDomain(domain)) return notFound(response, request);
    await submitDecisionForm(
      response,
      async () => {
        await work(SUBJECT[domain]);
        return `/queues/${domain}/${id}`;
      },
      (status, notice) => this.renderer(domain)(response, sessionOf(request), id, status, notice),
    );
  }

  private renderer(domain: Domain): (response: Response, session: StaffSession, id: string, status: number, notice?: SafeHtml) => Promise<void> {
    return domain === 'purchases' ? this.renderPurchase.bind(this) : this.renderPayout.bind(this);
  }

  private checkNotice(scheduled: boolean): SafeHtml {
    return scheduled
      ? html`<p class="notice" role="status">A lookup at the provider is queued for the worker; reload in a few seconds. If the provider proves an outcome, the item moves as the worker would move it.</p>`
      : html`<p class="notice" role="status">Nothing to check: the item is no longer open.</p>`;
  }

  private async renderPurchase(response: Response, session: StaffSession, id: string, status: number, notice: SafeHtml = html``): Promise<void> {
    // The item first: an unknown or malformed id is a 404 before anything else is read.
    const { item, history, resolution } = await this.queues.purchase(id);
    const work = await this.queues.workOf('purchase', item.id);
    const worked = workedItem('purchases', item.id, work.owner, item.status === 'review');
    const facts = html`<dl class="facts">
<dt>Status</dt><dd class="status-${item.status}">${item.status}</dd>
<dt>Vendor</dt><dd>${item.vendorName} <code>${item.vendorId}</code></dd>
<dt>Reference</dt><dd>${item.reference}</dd>
<dt>Amount</dt><dd>${money(item.chargeCents, item.currency)}</dd>
<dt>Admitted</dt><dd>${when(item.createdAt)}</dd>
<dt>Waiting since</dt><dd>${item.status === 'review' ? html`${when(item.waitingSince)} (${ageSince(item.waitingSince)})` : html`no longer waiting: ${item.status}${resolution ? html` since ${when(resolution.resolvedAt)}` : ''}`}</dd>
<dt>Submitted to the provider</dt><dd>${item.submissionAttemptedAt ? html`${when(item.submissionAttemptedAt)}, answer: ${item.submissionOutcome ?? 'none'}${item.submissionEndedAt ? html`, ended ${when(item.submissionEndedAt)}` : ''}` : 'never'}</dd>
<dt>Provider's transaction</dt><dd>${item.providerTransactionId ?? '—'}</dd>
<dt>Provider's last status</dt><dd>${item.providerStatus ?? '—'}</dd>
<dt>Last lookup</dt><dd>${when(item.lastCheckedAt)}${item.notFoundStreak > 0 ? html` (not found ${item.notFoundStreak}× in a row)` : ''}</dd>
<dt>Error code</dt><dd>${item.errorCode ?? '—'}</dd>
<dt>Resolved by hand</dt><dd>${resolution ? html`${resolution.outcome}, ${when(resolution.resolvedAt)} (<a href="/proposals/${resolution.proposalId}">proposal</a>)` : 'no'}</dd>
<dt>Owner</dt><dd id="owner">${ownerFact(session, worked)}</dd>
</dl>`;
    const historyTable = html`<h2>Status history and what the provider said</h2>${
      history.length === 0
        ? html`<p>No recorded move.</p>`
        : html`<table><thead><tr><th scope="col">When</th><th scope="col">Move</th><th scope="col">Provider status</th><th scope="col">Why</th></tr></thead><tbody>${history.map(
            (event) => html`<tr><td>${when(event.created_at)}</td><td>${event.from_status ?? 'new'} → ${event.to_status}</td><td>${event.provider_status ?? '—'}</td><td>${event.reason}</td></tr>`,
          )}</tbody></table>`
    }`;
    await this.renderItem(response, session, status, 'purchases', `Purchase ${item.reference}`, worked, work.notes, html`${notice}${facts}`, historyTable);
  }

  private async renderPayout(response: Response, session: StaffSession, id: string, status: number, notice: SafeHtml = html``): Promise<void> {
    const { item, contacts, resolution } = await this.queues.payout(id);
    const work = await this.queues.workOf('payout', item.id);
    const worked = workedItem('payouts', item.id, work.owner, item.status === 'needs_review');
    const facts = html`<dl class="facts">
<dt>Status</dt><dd class="status-${item.status}">${item.status}${item.statusReason ? html` (${item.statusReason})` : ''}</dd>
<dt>Vendor</dt><dd>${item.vendorName} <code>${item.vendorId}</code></dd>
<dt>Reference</dt><dd>${item.reference}</dd>
<dt>Method</dt><dd>${item.method}</dd>
<dt>Amount</dt><dd>${money(item.amountCents)} + fee ${money(item.feeCents)} (reserved while open)</dd>
<dt>Merchant reference</dt><dd><code>${item.merchantReference}</code></dd>
<dt>Provider reference</dt><dd>${item.providerReference ?? '—'}</dd>
<dt>Created</dt><dd>${when(item.createdAt)}</dd>
<dt>Waiting since</dt><dd>${item.status === 'needs_review' ? html`${when(item.waitingSince)} (${ageSince(item.waitingSince)})` : html`no longer waiting: ${item.status}${resolution ? html` since ${when(resolution.resolvedAt)}` : ''}`}</dd>
<dt>Next lookup</dt><dd>${when(item.nextPollAt)}</dd>
<dt>Resolved by hand</dt><dd>${resolution ? html`${resolution.outcome}, ${when(resolution.resolvedAt)} (<a href="/proposals/${resolution.proposalId}">proposal</a>)` : 'no'}</dd>
<dt>Owner</dt><dd id="owner">${ownerFact(session, worked)}</dd>
</dl>`;
    const trail = html`<h2>Submissions and lookups: what the provider said</h2>${
      contacts.length === 0
        ? html`<p>No exchange with the provider on record.</p>`
        : html`<table><thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Outcome</th><th scope="col">HTTP</th><th scope="col">Summary</th></tr></thead><tbody>${contacts.map(
            (contact) => html`<tr><td>${when(contact.at)}</td><td>${contact.kind}</td><td>${contact.outcome}</td><td>${contact.httpStatus ?? '—'}</td><td>${contact.summary ?? '—'}</td></tr>`,
          )}</tbody></table>`
    }`;
    await this.renderItem(response, session, status, 'payouts', `Payout ${item.reference}`, worked, work.notes, html`${notice}${facts}`, trail);
  }

  /** `head`: the notice and the item's facts; `evidence`: what the provider said. The owner, notes and resolution follow the same order for both queues. */
  private async renderItem(response: Response, session: StaffSession, status: number, domain: Domain, title: string, worked: WorkedItemView & { id: string }, notes: readonly ItemNote[], head: SafeHtml, evidence: SafeHtml): Promise<void> {
    const { id, open } = worked;
    const [proposals, records, staff] = await Promise.all([
      this.fourEyes.list({ subjectType: SUBJECT[domain], subjectId: id }),
      this.audit.list({ subjectType: SUBJECT[domain], subjectId: id }),
      this.accounts.list(),
    ]);
    const pending = proposals.find((proposal) => proposal.status === 'pending');
    const ownedByOther = worked.ownerStaffId !== null && worked.ownerStaffId !== session.staffUserId;
    const check = open && staffRoleAllows(session.role, 'items:check')
      ? html`<form method="post" action="/queues/${domain}/${id}/check">${csrfField(session)}<button type="submit" class="secondary">Check the provider now</button></form>`
      : html``;
    const propose = !open
      ? html``
      : pending
        ? html`<p>A resolution is waiting for a second person: <a href="/proposals/${pending.id}">${this.fourEyes.describe(pending)}</a>.</p>`
        : staffRoleAllows(session.role, 'actions:propose') && !ownedByOther
          ? html`<h2>Resolve by hand</h2><p class="hint">Only when the provider cannot be asked. Proposing claims it for you. Another approver must approve; the money then moves as a provider answer would move it.</p>
${decisionForm(
              session,
              `/queues/${domain}/${id}/propose`,
              html`<fieldset><legend>Outcome</legend>${REVIEW_OUTCOMES[SUBJECT[domain]].map((outcome) => html`<div class="checkbox"><input type="radio" id="outcome-${outcome}" name="outcome" value="${outcome}" required><label for="outcome-${outcome}">${outcome}</label></div>`)}</fieldset>${vendorSees(domain)}`,
              'reason',
              'Propose resolution',
              'Internal note for staff, never shown to the vendor (what the provider or bank confirmed, and how)',
            )}`
          : html``;
    sendPage(response, {
      title,
      session,
      current: `/queues/${domain}`,
      body: html`${head}${ownershipSection(session, worked, staff)}${evidence}${check}${notesSection(session, worked, notes, 'what you checked, whom you asked, what they said')}${propose}<h2>Proposals</h2>${this.proposalList(proposals)}<h2>Audit records</h2>${auditTable(records)}`,
    }, status);
  }

  private proposalList(proposals: readonly Proposal[]): SafeHtml {
    if (proposals.length === 0) return html`<p>None.</p>`;
    return html`<ul>${proposals.map((proposal) => html`<li><a href="/proposals/${proposal.id}">${this.fourEyes.describe(proposal)}</a>: ${proposal.status}, proposed by ${proposal.proposedByEmail} (${proposal.reason})${proposal.decidedByEmail ? html`, decided by ${proposal.decidedByEmail}` : ''} · ${subjectLink(proposal)}</li>`)}</ul>`;
  }
}
