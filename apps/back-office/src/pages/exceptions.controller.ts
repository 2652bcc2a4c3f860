import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { debtOf, type LedgerCorrectionEntry } from '#payout';
import { EXCEPTION_RESOLUTION_KINDS, RECONCILIATION_EXCEPTION_KINDS, type ExceptionDeskItem, type ExceptionResolutionKind } from '#reconciliation';
import { EXCEPTION_SUBJECT, ExceptionDesk, exceptionFilterOf, FourEyes, StaffAccounts, StaffAuditLog, staffRoleAllows, type ExceptionEvidence, type StaffSession } from '#staff';
import { auditDetails, html, money, when, type SafeHtml } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { formatAge } from '../web/age.js';
import { auditTable } from '../web/audit-table.js';
import { afterDecision, reasonField, submitDecisionForm } from '../web/form-action.js';
import { csrfField, sendPage } from '../web/layout.js';
import { notesSection, ownerFact, ownershipSection } from '../web/item-work.js';
import { deciderOf, sessionOf, type StaffRequest } from '../web/staff-request.js';
import { subjectLink } from './proposals.controller.js';

const ageSince = (since: Date) => formatAge((Date.now() - new Date(since).getTime()) / 1000);

/** What each resolution does, as the form says it. */
const RESOLUTION_HELP: Record<ExceptionResolutionKind, string> = {
  no_money_moves: 'No money moves: nothing to correct in our books (the provider\'s error, a ticket, a debt the vendor funded).',
  record_corrected: 'Record corrected: a verified provider answer has moved the record and it now agrees with the provider (refused otherwise).',
  ledger_adjustment: 'Ledger adjustment: debit or credit the vendor\'s payout account by the amount (another approver approves).',
  recovered_from_vendor: 'Recovered from the vendor: debit their payout account by the amount (another approver approves).',
  repaid_to_vendor: 'Repaid to the vendor: credit their payout account by the amount (another approver approves).',
};

/** A payout's amount and fee, or a purchase's charge. */
function ourAmount(item: ExceptionDeskItem): SafeHtml | string {
  if (item.ourAmountCents === null) return '—';
  return item.ourFeeCents === null ? money(item.ourAmountCents) : html`${money(item.ourAmountCents)} + fee ${money(item.ourFeeCents)}`;
}

/** The provider's words in the evidence, in one short line. */
function providerSaid(item: ExceptionDeskItem): string {
  const said = item.details;
  const answered = (said.answered ?? {}) as Record<string, unknown>;
  const status = said.provider_says ?? said.provider_status ?? answered.status;
  const amount = said.provider_amount ?? answered.amount;
  return [status, amount ? `amount ${String(amount)}` : null].filter(Boolean).join(', ') || '—';
}

/**
 * Reconciliation exceptions as a back-office queue (docs/BACK-OFFICE.md, "Exceptions"): open
 * ones oldest first with their age, vendor, amounts and what the provider said, filtered by kind
 * and status; each with its evidence (report lines, lookups, details), an owner who claims it,
 * append-only notes, and a named resolution. A resolution that moves money is a four-eyes
 * proposal; everything goes through ExceptionDesk, as `ops reconcile:resolve` does.
 */
@Controller('exceptions')
export class ExceptionsController {
  constructor(
    private readonly desk: ExceptionDesk,
    private readonly fourEyes: FourEyes,
    private readonly audit: StaffAuditLog,
    private readonly accounts: StaffAccounts,
  ) {}

  @Get()
  @RequireStaffPermission('queues:read')
  async list(@Query() query: Record<string, unknown>, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const filter = exceptionFilterOf(query);
    const items = await this.desk.list(filter);
    const statusChoice = typeof query.status === 'string' && ['open', 'resolved', 'all'].includes(query.status) ? query.status : 'open';
    const option = (value: string, label: string, chosen: unknown) => html`<option value="${value}"${value === chosen ? html` selected` : html``}>${label}</option>`;
    const form = html`<form method="get" action="/exceptions" class="filters">
<label for="filter-status">Status</label><select id="filter-status" name="status">${option('open', 'open', statusChoice)}${option('resolved', 'resolved', statusChoice)}${option('all', 'all', statusChoice)}</select>
<label for="filter-kind">Kind</label><select id="filter-kind" name="kind">${option('', 'every kind', filter.kind ?? '')}${RECONCILIATION_EXCEPTION_KINDS.map((kind) => option(kind, kind, filter.kind))}</select>
<p><button type="submit" class="secondary">Filter</button></p></form>`;
    const body = items.length === 0
      ? html`<p>No exception matches.</p>`
      : html`<p>${items.length} exception${items.length === 1 ? '' : 's'}${filter.status === 'resolved' ? ', most recently resolved first' : ', oldest first'}.</p>
<div class="scroll" tabindex="0" role="region" aria-label="Exceptions"><table><thead><tr><th scope="col">Waiting</th><th scope="col">Kind</th><th scope="col">Vendor</th><th scope="col">Record</th><th scope="col" class="num">Our amount</th><th scope="col">Provider said</th><th scope="col">Owner</th><th scope="col">Status</th></tr></thead>
<tbody>${items.map(
          (item) => html`<tr><td>${ageSince(item.raisedAt)}</td><td><a href="/exceptions/${item.id}">${item.kind}</a></td><td>${item.vendorName ?? '—'}</td>
<td>${item.recordReference ? html`${item.domain} ${item.recordReference} (${item.recordStatus})` : item.domain}</td><td class="num">${ourAmount(item)}</td><td>${providerSaid(item)}</td>
<td>${item.ownerEmail ?? 'nobody'}</td><td class="status-${item.status}">${item.status}${item.resolutionKind ? html` (${item.resolutionKind})` : ''}</td></tr>`,
        )}</tbody></table></div>`;
    sendPage(response, { title: 'Exceptions', session: sessionOf(request), current: '/exceptions', body: html`${form}${body}` });
  }

  @Get(':id')
  @RequireStaffPermission('queues:read')
  async detail(@Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.render(response, sessionOf(request), id, 200);
  }

  @Post(':id/claim')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async claim(@Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.act(response, request, id, () => this.desk.claim(id, deciderOf(request)));
  }

  @Post(':id/unclaim')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async unclaim(@Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.act(response, request, id, () => this.desk.unclaim(id, deciderOf(request)));
  }

  @Post(':id/reassign')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async reassign(@Param('id') id: string, @Body() form: { owner?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.act(response, request, id, () => this.desk.reassign(id, form.owner, deciderOf(request)));
  }

  @Post(':id/notes')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async note(@Param('id') id: string, @Body() form: { note?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.act(response, request, id, () => this.desk.note(id, form.note, deciderOf(request)));
  }

  @Post(':id/resolve')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async resolve(@Param('id') id: string, @Body() form: Record<string, string | undefined>, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await submitDecisionForm(
      response,
      async () => {
        const outcome = await this.desk.resolve(id, { resolution: form.resolution, reason: form.reason, direction: form.direction, amount: form.amount }, deciderOf(request));
        return outcome.resolved ? `/exceptions/${id}` : afterDecision({ applied: false, proposal: outcome.proposal }, '');
      },
      (status, notice) => this.render(response, sessionOf(request), id, status, notice),
    );
  }

  /** Runs one step and returns to the exception's page (303); a validation error shows it again with the message. */
  private act(response: Response, request: StaffRequest, id: string, step: () => Promise<unknown>): Promise<void> {
    return submitDecisionForm(
      response,
      async () => {
        await step();
        return `/exceptions/${id}`;
      },
      (status, notice) => this.render(response, sessionOf(request), id, status, notice),
    );
  }

  private async render(response: Response, session: StaffSession, id: string, status: number, notice: SafeHtml = html``): Promise<void> {
    const item = await this.desk.get(id);
    const [evidence, proposals, records, staff] = await Promise.all([
      this.desk.evidence(item),
      this.fourEyes.list({ subjectType: EXCEPTION_SUBJECT, subjectId: item.id }),
      this.audit.list({ subjectType: EXCEPTION_SUBJECT, subjectId: item.id }),
      this.accounts.list(),
    ]);
    const pending = proposals.find((proposal) => proposal.status === 'pending');
    const mayWork = staffRoleAllows(session.role, 'actions:propose');
    const open = item.status === 'open';
    const mine = item.ownerStaffId === session.staffUserId;
    const worked = { path: `/exceptions/${item.id}`, ownerStaffId: item.ownerStaffId, ownerEmail: item.ownerEmail, claimedAt: item.claimedAt, open };
    const record = item.payoutId
      ? html`<a href="/queues/payouts/${item.payoutId}">payout ${item.recordReference ?? item.payoutId}</a> (${item.recordStatus ?? 'unknown'})`
      : item.purchaseTransactionId
        ? html`<a href="/queues/purchases/${item.purchaseTransactionId}">purchase ${item.recordReference ?? item.purchaseTransactionId}</a> (${item.recordStatus ?? 'unknown'})`
        : 'none of ours';
    const balances = evidence.balances;
    const facts = html`<dl class="facts">
<dt>Status</dt><dd class="status-${item.status}">${item.status}</dd>
<dt>Kind</dt><dd><code>${item.kind}</code> (${item.domain})</dd>
<dt>Vendor</dt><dd>${item.vendorId ? html`<a href="/vendors/${item.vendorId}">${item.vendorName ?? item.vendorId}</a>` : '—'}</dd>
<dt>Record</dt><dd>${record}</dd>
<dt>Our amount</dt><dd>${ourAmount(item)}</dd>
<dt>Provider</dt><dd>${item.provider ?? '—'}${item.reportDate ? html`, report of ${item.reportDate}` : ''}</dd>
<dt>Raised</dt><dd>${when(item.raisedAt)} (${ageSince(item.raisedAt)} ago)</dd>
<dt>Owner</dt><dd id="owner">${ownerFact(session, worked)}</dd>
<dt>Payout account now</dt><dd>${balances ? html`available ${money(balances.availableCents)}, reserved ${money(balances.reservedCents)}${debtOf(balances) > 0n ? html`, <strong>debt ${money(debtOf(balances))}</strong>` : ''}` : '—'}</dd>
<dt>Resolution</dt><dd>${item.status === 'resolved' ? html`<code>${item.resolutionKind ?? 'unnamed'}</code> by ${item.resolvedBy ?? '—'}, ${when(item.resolvedAt)}: ${item.resolution ?? ''}${item.resolutionProposalId ? html` (<a href="/proposals/${item.resolutionProposalId}">proposal</a>)` : ''}` : '—'}</dd>
</dl>`;
    sendPage(response, {
      title: `Exception ${item.kind}`,
      session,
      current: '/exceptions',
      body: html`${notice}${facts}${ownershipSection(session, worked, staff)}${this.evidenceSections(item, evidence)}${notesSection(session, worked, evidence.notes)}${this.resolveSection(session, item, mayWork, mine, pending ? html`<p>A resolution is waiting for a second person: <a href="/proposals/${pending.id}">${this.fourEyes.describe(pending)}</a>.</p>` : null)}
<h2>Proposals</h2>${proposals.length === 0 ? html`<p>None.</p>` : html`<ul>${proposals.map((proposal) => html`<li><a href="/proposals/${proposal.id}">${this.fourEyes.describe(proposal)}</a>: ${proposal.status}, proposed by ${proposal.proposedByEmail}${proposal.decidedByEmail ? html`, decided by ${proposal.decidedByEmail}` : ''} · ${subjectLink(proposal)}</li>`)}</ul>`}
<h2>Audit records</h2><div class="scroll" tabindex="0" role="region" aria-label="Audit records">${auditTable(records)}</div>`,
    }, status);
  }

  private evidenceSections(item: ExceptionDeskItem, evidence: ExceptionEvidence): SafeHtml {
    const lines = evidence.lines.length === 0
      ? html`<p>No settlement report line about it.</p>`
      : html`<div class="scroll" tabindex="0" role="region" aria-label="Settlement report lines"><table><caption class="visually-hidden">Settlement report lines</caption><thead><tr><th scope="col">Report</th><th scope="col">Provider reference</th><th scope="col">Merchant reference</th><th scope="col" class="num">Amount</th><th scope="col">Status</th><th scope="col">Result</th></tr></thead><tbody>${evidence.lines.map(
          (line) => html`<tr><td>${line.provider}, ${line.reportDate}</td><td><code>${line.providerReference}</code></td><td><code>${line.merchantReference}</code></td><td class="num">${money(line.amountCents, line.currency)}</td>
<td>${line.providerStatus ?? line.status}${line.settledAt ? html`, settled ${line.settledAt}` : ''}${line.reversedAt ? html`, reversed ${line.reversedAt}` : ''}</td><td>${line.matchResult ?? 'not matched'}${line.exceptionId === item.id ? ' (this exception)' : ''}${line.withdrawnAt ? html`, withdrawn ${when(line.withdrawnAt)}` : ''}</td></tr>`,
        )}</tbody></table></div>`;
    const lookups = item.payoutId
      ? html`<h3>Submissions and lookups</h3>${evidence.contacts.length === 0 ? html`<p>No exchange with the provider on record.</p>` : html`<div class="scroll" tabindex="0" role="region" aria-label="Submissions and lookups"><table><caption class="visually-hidden">Submissions and lookups</caption><thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Outcome</th><th scope="col">Summary</th></tr></thead><tbody>${evidence.contacts.map(
          (contact) => html`<tr><td>${when(contact.at)}</td><td>${contact.kind}</td><td>${contact.outcome}</td><td>${contact.summary ?? '—'}</td></tr>`,
        )}</tbody></table></div>`}`
      : item.purchaseTransactionId
        ? html`<h3>Status history</h3>${evidence.history.length === 0 ? html`<p>No recorded move.</p>` : html`<ul>${evidence.history.map((event) => html`<li>${when(event.created_at)}: ${event.from_status ?? 'new'} → ${event.to_status} (provider ${event.provider_status ?? '—'}): ${event.reason}</li>`)}</ul>`}`
        : html``;
    return html`<h2>Evidence</h2><h3>What was observed</h3><div class="evidence">${auditDetails(item.details)}</div><h3>Settlement report lines</h3>${lines}${lookups}
<h3>Ledger entries from this exception</h3>${correctionTable(evidence.corrections)}`;
  }

  private resolveSection(session: StaffSession, item: ExceptionDeskItem, mayWork: boolean, mine: boolean, pending: SafeHtml | null): SafeHtml {
    if (item.status !== 'open' || !mayWork) return html``;
    if (pending) return html`<h2>Resolve</h2>${pending}`;
    if (item.ownerStaffId && !mine) return html``;
    const choices = EXCEPTION_RESOLUTION_KINDS.filter((kind) => item.vendorId || kind === 'no_money_moves' || kind === 'record_corrected');
    return html`<h2>Resolve</h2><p class="hint">Resolving claims it for you. A resolution that moves money is a proposal another approver approves; the entry is written once, on approval.</p>
<form method="post" action="/exceptions/${item.id}/resolve">${csrfField(session)}
<fieldset><legend>Resolution</legend>${choices.map((kind) => html`<div class="checkbox"><input type="radio" id="resolution-${kind}" name="resolution" value="${kind}" required><label for="resolution-${kind}">${RESOLUTION_HELP[kind]}</label></div>`)}</fieldset>
${item.vendorId ? html`<label for="direction">Adjustment (ledger adjustment only)</label><select id="direction" name="direction"><option value="">—</option><option value="debit">debit: take from the vendor</option><option value="credit">credit: give to the vendor</option></select>
<label for="amount">Amount in ZAR (money resolutions only)</label><input id="amount" name="amount" type="text" inputmode="decimal">` : html``}
${reasonField('reason', 'Why (what was found, what was agreed, with whom)')}
<p><button type="submit">Resolve</button></p></form>`;
  }
}

/** Correction entries (resettle, adjust_debit, adjust_credit): the vendor's page and the exception's page. */
export function correctionTable(entries: readonly LedgerCorrectionEntry[]): SafeHtml {
  if (entries.length === 0) return html`<p>None.</p>`;
  return html`<div class="scroll" tabindex="0" role="region" aria-label="Ledger corrections"><table><caption class="visually-hidden">Ledger corrections</caption><thead><tr><th scope="col">When</th><th scope="col">Entry</th><th scope="col" class="num">Effect on available</th><th scope="col">Why</th><th scope="col">From</th><th scope="col">Approved by</th></tr></thead><tbody>${entries.map(
    (entry) => html`<tr><td>${when(entry.createdAt)}</td><td><code>${entry.kind}</code></td><td class="num">${money(entry.availableDeltaCents)}</td><td>${entry.reason}</td>
<td>${entry.exceptionId ? html`<a href="/exceptions/${entry.exceptionId}">exception</a>` : ''}${entry.exceptionId && entry.proposalId ? ' · ' : ''}${entry.proposalId ? html`<a href="/proposals/${entry.proposalId}">proposal</a>` : ''}</td><td>${entry.approvedBy ?? 'automatic (provider proof)'}</td></tr>`,
  )}</tbody></table></div>`;
}
