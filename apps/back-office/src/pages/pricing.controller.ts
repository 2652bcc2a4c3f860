import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ValidationFailedError } from '#common';
import { PurchasePricingService } from '#purchase';
import { requireReason, StaffAuditLog, staffRoleAllows, VendorOperations, type StaffSession } from '#staff';
import { html, when, type SafeHtml } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { auditTable } from '../web/audit-table.js';
import { confirmationBody, decisionForm, isConfirmed, submitDecisionForm } from '../web/form-action.js';
import { sendPage } from '../web/layout.js';
import { deciderOf, sessionOf, type StaffRequest } from '../web/staff-request.js';

/**
 * Pricing versions (`ops pricing:publish`): every vendor's listed price is wholesale + margin in
 * the current (newest) version; quotes keep the version they were priced with. Publishing
 * commits the version with its `pricing.published` audit record (before and after version ids).
 */
/** Raised inside the form's operation when the first step is valid but not yet confirmed. */
class ConfirmFirst extends Error {
  constructor(readonly marginBps: number) {
    super('confirm first');
  }
}

@Controller('pricing')
export class PricingController {
  constructor(
    private readonly pricing: PurchasePricingService,
    private readonly audit: StaffAuditLog,
    private readonly operations: VendorOperations,
  ) {}

  @Get()
  @RequireStaffPermission('queues:read')
  async page(@Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.render(response, sessionOf(request), 200);
  }

  @Post()
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async publish(@Body() form: { margin_bps?: string; reason?: string; confirmed?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await submitDecisionForm(
      response,
      async () => {
        const margin = (form.margin_bps ?? '').trim();
        if (!/^\d{1,6}$/.test(margin)) throw new ValidationFailedError({ margin_bps: ['Enter the margin in basis points, a whole number (100 = 1 %).'] });
        // Every vendor's prices change at once: the second step says so, with the margin in force now.
        if (!isConfirmed(form)) throw new ConfirmFirst(Number(margin));
        await this.operations.publishPricing(Number(margin), requireReason(form.reason), deciderOf(request));
        return '/pricing';
      },
      (status, notice) => this.render(response, sessionOf(request), status, notice),
    ).catch(async (error: unknown) => {
      if (!(error instanceof ConfirmFirst)) throw error;
      const session = sessionOf(request);
      const [current] = await this.pricing.versions();
      const percent = (bps: number) => `${(bps / 100).toFixed(2)} %`;
      sendPage(response, {
        title: 'Publish pricing',
        session,
        current: '/pricing',
        body: confirmationBody(session, {
          title: 'Publish pricing',
          consequences: html`Publish a new pricing version with a margin of <strong>${error.marginBps} bp (${percent(error.marginBps)})</strong>${current ? html`, replacing version ${current.id} at ${current.marginBps} bp (${percent(current.marginBps)})` : ''}? It prices every active product for <strong>every vendor</strong>, and is current at once: the next quote of every vendor uses it. Undo by publishing another version.`,
          action: '/pricing',
          fields: { margin_bps: String(error.marginBps) },
          reason: form.reason,
          button: 'Publish for every vendor',
          cancel: '/pricing',
        }),
      });
    });
  }

  private async render(response: Response, session: StaffSession, status: number, notice: SafeHtml = html``): Promise<void> {
    const [versions, records] = await Promise.all([this.pricing.versions(), this.audit.list({ subjectType: 'pricing' })]);
    const list = versions.length === 0
      ? html`<p>No pricing version is published: no product has a price yet.</p>`
      : html`<table><thead><tr><th scope="col">Version</th><th scope="col" class="num">Margin (bp)</th><th scope="col" class="num">Products</th><th scope="col">Published</th></tr></thead>
<tbody>${versions.map(
          (version, index) => html`<tr><td>${version.id}${index === 0 ? html` <strong class="current">current</strong>` : html``}</td><td class="num">${version.marginBps}</td><td class="num">${version.productCount}</td><td>${when(version.publishedAt)}</td></tr>`,
        )}</tbody></table>`;
    const publish = staffRoleAllows(session.role, 'actions:propose')
      ? html`<h2>Publish a new version</h2><p class="hint">Prices every active product for every vendor at wholesale plus the margin; the new version is current at once.</p>${decisionForm(
          session,
          '/pricing',
          html`<label for="margin-bps">Margin in basis points (100 = 1 %)</label><input id="margin-bps" name="margin_bps" type="text" inputmode="numeric" required>`,
          'pricing-reason',
          'Publish pricing',
        )}`
      : html``;
    sendPage(response, { title: 'Pricing versions', session, current: '/pricing', body: html`${notice}${list}${publish}<h2>Audit records</h2>${auditTable(records)}` }, status);
  }
}
