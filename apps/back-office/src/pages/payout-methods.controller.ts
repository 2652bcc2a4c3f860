import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { VendorService } from '#auth';
import { formatCents } from '#money';
import { PAYOUT_METHOD_CATALOGUE, PayoutAccountService, PayoutMethodsService } from '#payout';
import { requireReason, requireZarCents, StaffAuditLog, staffRoleAllows, VendorOperations, type StaffSession } from '#staff';
import { html, money, moneyFromCents, moneyRange, type SafeHtml } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { auditTable } from '../web/audit-table.js';
import { decisionForm, submitDecisionForm } from '../web/form-action.js';
import { sendPage } from '../web/layout.js';
import { changedBySomeoneElse, changedMeanwhile, methodsChangeOf, type MethodsForm } from '../web/payout-methods-form.js';
import { deciderOf, sessionOf, type StaffRequest } from '../web/staff-request.js';

/**
 * A vendor's payout methods and fees (`ops payout:methods` and `payout:fee`, the same rules
 * through PayoutMethodsService): methods on or off, per-method fee, per-method minimum and
 * maximum never beyond the catalogue's, and the account's fee_per_payout. Each change commits
 * with its audit record (`payout.methods_set`, `payout.fee_set`).
 */
@Controller('vendors/:id/payout-methods')
export class PayoutMethodsController {
  constructor(
    private readonly vendors: VendorService,
    private readonly methods: PayoutMethodsService,
    private readonly accounts: PayoutAccountService,
    private readonly audit: StaffAuditLog,
    private readonly operations: VendorOperations,
  ) {}

  @Get()
  @RequireStaffPermission('queues:read')
  async page(@Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.render(response, sessionOf(request), id, 200);
  }

  @Post()
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async configure(@Param('id') id: string, @Body() form: MethodsForm, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await submitDecisionForm(
      response,
      async () => {
        const reason = requireReason(form.reason);
        const vendor = await this.vendors.get(id);
        const { change, shown } = methodsChangeOf(form);
        // Checked on the settings read under the vendor's row lock, in the transaction that applies the change.
        await this.operations.configurePayoutMethods(vendor.id, change, reason, deciderOf(request), (current) => {
          const others = changedMeanwhile(shown, current);
          if (others.length > 0) throw changedBySomeoneElse(others);
        });
        return `/vendors/${vendor.id}/payout-methods`;
      },
      (status, notice) => this.render(response, sessionOf(request), id, status, notice),
    );
  }

  @Post('fee')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async fee(@Param('id') id: string, @Body() form: { amount?: string; reason?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await submitDecisionForm(
      response,
      async () => {
        const reason = requireReason(form.reason);
        await this.operations.setFeePerPayout(id, requireZarCents(form.amount, 'amount', 'Enter a ZAR amount with two decimals, e.g. 5.00.'), reason, deciderOf(request));
        return `/vendors/${id}/payout-methods`;
      },
      (status, notice) => this.render(response, sessionOf(request), id, status, notice),
    );
  }

  private async render(response: Response, session: StaffSession, id: string, status: number, notice: SafeHtml = html``): Promise<void> {
    const vendor = await this.vendors.get(id);
    const [settings, account, records] = await Promise.all([
      this.methods.settingsOf(vendor.id),
      this.accounts.getAccount(vendor.id),
      this.audit.list({ subjectType: 'vendor', subjectId: vendor.id }),
    ]);
    const mayChange = staffRoleAllows(session.role, 'actions:propose');
    const rows = settings.map((setting) => {
      const definition = PAYOUT_METHOD_CATALOGUE[setting.method];
      // Each field carries the value it was shown with (shown_<field>_<method>): the submission changes only what the staff member changed.
      const input = (name: string, label: string, cents: bigint | null) => {
        const value = cents === null ? '' : formatCents(cents);
        return mayChange
          ? html`<label class="visually-hidden" for="${name}_${setting.method}">${label} for ${definition.name}</label><input id="${name}_${setting.method}" name="${name}_${setting.method}" type="text" inputmode="decimal" size="10" value="${value}">
<input type="hidden" name="shown_${name}_${setting.method}" value="${value}">`
          : html`${cents === null ? '—' : moneyFromCents(cents)}`;
      };
      return html`<tr><th scope="row">${definition.name} <code>${setting.method}</code></th>
<td>${mayChange ? html`<input type="checkbox" id="enabled_${setting.method}" name="enabled_${setting.method}" value="on"${setting.enabled ? html` checked` : html``} aria-label="${definition.name} enabled">
<input type="hidden" name="shown_enabled_${setting.method}" value="${setting.enabled ? 'on' : ''}">` : setting.enabled ? 'yes' : 'no'}</td>
<td>${input('fee', 'Fee', setting.feeCents)}<br><span class="hint">charged: ${money(setting.effectiveFeeCents)}</span></td>
<td>${input('min', 'Minimum', setting.minimumCents)}</td>
<td>${input('max', 'Maximum', setting.maximumCents)}<br><span class="hint">catalogue range ${moneyRange(definition.minimumCents, definition.maximumCents)}</span></td></tr>`;
    });
    const table = html`<table><thead><tr><th scope="col">Method</th><th scope="col">Enabled</th><th scope="col">Fee (ZAR)</th><th scope="col">Minimum (ZAR)</th><th scope="col">Maximum (ZAR)</th></tr></thead><tbody>${rows}</tbody></table>`;
    const methodsSection = mayChange
      ? decisionForm(session, `/vendors/${vendor.id}/payout-methods`, html`<p class="hint">A blank fee means the account's fee per payout (vouchers: none); a blank minimum or maximum means the catalogue's. Limits can only be tightened.</p>${table}`, 'methods-reason', 'Save payout methods')
      : table;
    const feeSection = mayChange
      ? decisionForm(
          session,
          `/vendors/${vendor.id}/payout-methods/fee`,
          html`<label for="fee-amount">Fee per payout (ZAR)</label><input id="fee-amount" name="amount" type="text" inputmode="decimal" required value="${formatCents(account.feePerPayoutCents)}">`,
          'fee-reason',
          'Set fee per payout',
        )
      : html`<p>${money(account.feePerPayoutCents)}</p>`;
    sendPage(response, {
      title: `${vendor.name}: payout methods and fees`,
      session,
      current: '/vendors',
      body: html`${notice}<p><a href="/vendors/${vendor.id}">Back to ${vendor.name}</a></p><h2>Methods</h2>${methodsSection}
<h2>Account fee per payout</h2><p class="hint">Cash and bank payouts without a method fee pay this.</p>${feeSection}<h2>Audit records</h2>${auditTable(records, 'Audit trail', new Map([[vendor.id, vendor.name]]))}`,
    }, status);
  }
}
