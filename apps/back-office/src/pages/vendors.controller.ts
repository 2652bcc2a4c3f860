import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ALL_ABILITIES, VendorService } from '#auth';
import { formatCents } from '#money';
import { PayoutLedgerService } from '#payout';
import { PurchaseCatalogueService, PurchaseSpendControlsService, type LimitsView } from '#purchase';
import { FourEyes, productListOf, requireReason, StaffAuditLog, staffRoleAllows, VendorFunding, VendorOperations, type StaffAuditRecord, type StaffSession } from '#staff';
import { html, money, when, type SafeHtml } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { auditTable } from '../web/audit-table.js';
import { afterDecision, confirmationBody, decisionForm, isConfirmed, submitDecisionForm } from '../web/form-action.js';
import { sendPage } from '../web/layout.js';
import { deciderOf, sessionOf, type StaffRequest } from '../web/staff-request.js';
import { correctionTable } from './exceptions.controller.js';

/** Whether the vendor can buy now, in words: every staff role sees it on the vendor's page. */
function purchasesState(limits: LimitsView): SafeHtml {
  if (limits.paused_scope === 'global') return html`<strong class="status-failed">Paused for every vendor</strong> (a platform-wide pause, lifted with <code>ops purchases:resume</code> without <code>--vendor</code>)`;
  if (limits.paused_scope === 'vendor') return html`<strong class="status-failed">Paused</strong>: new purchases of this vendor are refused`;
  return html`<strong class="status-completed">Running</strong>: new purchases are accepted`;
}

/**
 * Vendors as staff see them, with their prefunded payout account; funding it (the bank reference
 * as the reason) is applied at once up to STAFF_FOUR_EYES_ABOVE_CENTS, above it a four-eyes
 * proposal credited through the ledger on approval (VendorFunding). The operator CLI's other
 * vendor operations are forms here too; payout methods and fees have their own page
 * (PayoutMethodsController), pricing versions theirs (PricingController). docs/BACK-OFFICE.md.
 */
@Controller('vendors')
export class VendorsController {
  constructor(
    private readonly vendors: VendorService,
    private readonly ledger: PayoutLedgerService,
    private readonly fourEyes: FourEyes,
    private readonly audit: StaffAuditLog,
    private readonly funding: VendorFunding,
    private readonly operations: VendorOperations,
    private readonly spendControls: PurchaseSpendControlsService,
    private readonly catalogue: PurchaseCatalogueService,
  ) {}

  @Get()
  @RequireStaffPermission('queues:read')
  async list(@Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.renderList(response, sessionOf(request), 200);
  }

  private async renderList(response: Response, session: StaffSession, status: number, notice: SafeHtml = html``): Promise<void> {
    const vendors = await this.vendors.list();
    const balances = await this.ledger.balancesOf(vendors.map((vendor) => vendor.id));
    const body = html`<table><thead><tr><th scope="col">Vendor</th><th scope="col">Released</th><th scope="col" class="num">Payout funds available</th><th scope="col" class="num">Reserved</th><th scope="col">Since</th></tr></thead>
<tbody>${vendors.map(
      (vendor, index) => html`<tr><td><a href="/vendors/${vendor.id}">${vendor.name}</a></td><td>${vendor.productionReleasedAt ? when(vendor.productionReleasedAt) : 'no'}</td>
<td class="num">${money(balances[index].availableCents)}</td><td class="num">${money(balances[index].reservedCents)}</td><td>${when(vendor.createdAt)}</td></tr>`,
    )}</tbody></table>`;
    // A new vendor starts with every ability and unreleased: nothing moves money until staff release it.
    const create = staffRoleAllows(session.role, 'actions:propose')
      ? html`<h2>New vendor</h2>${decisionForm(session, '/vendors', html`<label for="vendor-name">Name</label><input id="vendor-name" name="name" type="text" maxlength="200" required>`, 'create-reason', 'Create vendor')}`
      : html``;
    sendPage(response, { title: 'Vendors', session, current: '/vendors', body: html`${notice}${body}${create}` }, status);
  }

  @Post()
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async create(@Body() form: { name?: string; reason?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await submitDecisionForm(
      response,
      async () => `/vendors/${(await this.operations.createVendor(form.name ?? '', requireReason(form.reason), deciderOf(request))).id}`,
      (status, notice) => this.renderList(response, sessionOf(request), status, notice),
    );
  }

  @Get(':id')
  @RequireStaffPermission('queues:read')
  async detail(@Param('id') id: string, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.render(response, sessionOf(request), id, 200);
  }

  @Post(':id/fund')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async proposeFunding(@Param('id') id: string, @Body() form: { amount?: string; reason?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.act(response, request, id, async () => afterDecision(await this.funding.fund(id, form.amount, form.reason, deciderOf(request)), `/vendors/${id}`));
  }

  @Post(':id/release')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async release(@Param('id') id: string, @Body() form: { reason?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.act(response, request, id, () => this.operations.release(id, requireReason(form.reason), deciderOf(request)));
  }

  /** The form sends the abilities that should be enabled; every other one is disabled, as `ops vendor:abilities --enable/--disable` would. */
  @Post(':id/abilities')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async abilities(@Param('id') id: string, @Body() form: { abilities?: string | string[]; reason?: string; confirmed?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const chosen = form.abilities === undefined ? [] : ([] as string[]).concat(form.abilities);
    const disable = ALL_ABILITIES.filter((ability) => !chosen.includes(ability));
    // Switching an ability off refuses the vendor's live integration at once: said first, then confirmed.
    const vendor = await this.vendors.get(id);
    const switchedOff = vendor.enabledAbilities.filter((ability) => (disable as readonly string[]).includes(ability));
    if (switchedOff.length > 0 && !isConfirmed(form)) {
      return this.confirm(response, request, vendor, {
        title: 'Switch abilities off',
        consequences: html`Switch off <strong>${switchedOff.join(', ')}</strong> for <strong>${vendor.name}</strong>? Every API token of ${vendor.name} is refused ${switchedOff.length === 1 ? 'this ability' : 'these abilities'} from the next request (403), and their dashboard stops offering ${switchedOff.length === 1 ? 'it' : 'them'}. Switching back on restores it.`,
        action: `/vendors/${vendor.id}/abilities`,
        fields: { abilities: chosen },
        reason: form.reason,
        button: `Switch off for ${vendor.name}`,
        cancel: `/vendors/${vendor.id}`,
      });
    }
    await this.act(response, request, id, () => this.operations.setAbilities(id, chosen, disable, requireReason(form.reason), deciderOf(request)));
  }

  /**
   * The daily cap and per-purchase maximum come in ZAR (two decimals) and are stored in cents.
   * Lowering limits applies at once; raising the daily cap or per-purchase maximum above the threshold becomes a proposal.
   */
  @Post(':id/limits')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async limits(@Param('id') id: string, @Body() form: Record<string, string | undefined>, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.act(response, request, id, async () => {
      const { reason, ...limits } = form;
      return afterDecision(await this.funding.setLimits(id, limits, reason, deciderOf(request)), `/vendors/${id}`);
    });
  }

  @Post(':id/pause')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async pause(@Param('id') id: string, @Body() form: { paused?: string; reason?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    await this.act(response, request, id, () => this.operations.setPaused(id, form.paused !== 'false', requireReason(form.reason), deciderOf(request)));
  }

  /** `products` is "all" or comma-separated product ids, as for `ops catalogue:enable`. */
  @Post(':id/products')
  @HttpCode(200)
  @RequireStaffPermission('actions:propose')
  async products(@Param('id') id: string, @Body() form: { products?: string; enable?: string; reason?: string; confirmed?: string }, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    if (form.enable === 'false' && !isConfirmed(form)) {
      const vendor = await this.vendors.get(id);
      const products = (form.products ?? '').trim();
      return this.confirm(response, request, vendor, {
        title: 'Withdraw products',
        consequences: html`Withdraw <strong>${products.toLowerCase() === 'all' ? 'every product' : products}</strong> from <strong>${vendor.name}</strong>? From now on ${vendor.name} can neither quote nor buy ${products.toLowerCase() === 'all' ? 'anything' : 'them'} (purchases already made are not affected). Enabling them again restores it.`,
        action: `/vendors/${vendor.id}/products`,
        fields: { products: form.products, enable: 'false' },
        reason: form.reason,
        button: `Withdraw from ${vendor.name}`,
        cancel: `/vendors/${vendor.id}`,
      });
    }
    await this.act(response, request, id, () => this.operations.setProducts(id, form.enable !== 'false', productListOf(form.products), requireReason(form.reason), deciderOf(request)));
  }

  private confirm(response: Response, request: StaffRequest, vendor: { id: string }, confirmation: Parameters<typeof confirmationBody>[1]): void {
    const session = sessionOf(request);
    sendPage(response, { title: confirmation.title, session, current: '/vendors', body: confirmationBody(session, confirmation) });
  }

  /**
   * Runs a vendor operation and redirects where it says (a path), otherwise back to the vendor's
   * page; a validation error shows the page again with the message.
   */
  private act(response: Response, request: StaffRequest, id: string, operation: () => Promise<unknown>): Promise<void> {
    return submitDecisionForm(
      response,
      async () => {
        const target = await operation();
        return typeof target === 'string' ? target : `/vendors/${id}`;
      },
      (status, notice) => this.render(response, sessionOf(request), id, status, notice),
    );
  }

  private async render(response: Response, session: StaffSession, id: string, status: number, notice: SafeHtml = html``): Promise<void> {
    const vendor = await this.vendors.get(id);
    const [balances, limits, proposals, records, corrections] = await Promise.all([
      this.ledger.balances(vendor.id),
      this.spendControls.limitsFor(vendor.id),
      this.fourEyes.list({ subjectType: 'vendor', subjectId: vendor.id }),
      this.audit.list({ subjectType: 'vendor', subjectId: vendor.id }),
      this.ledger.corrections({ vendorId: vendor.id }),
    ]);
    const pending = proposals.find((proposal) => proposal.status === 'pending');
    const fund = pending
      ? html`<p>A proposal is waiting for a second person (one at a time per vendor): <a href="/proposals/${pending.id}">${this.fourEyes.describe(pending)}</a>.</p>`
      : staffRoleAllows(session.role, 'actions:propose')
        ? html`<h2>Fund the payout account</h2><p class="hint">Up to the configured amount the ledger is credited at once; above it another approver must approve, and the ledger is credited on approval.</p>
${decisionForm(session, `/vendors/${vendor.id}/fund`, html`<label for="amount">Amount (ZAR)</label><input id="amount" name="amount" type="text" inputmode="decimal" required>`, 'fund-reason', 'Fund', 'Why (the bank reference of the deposit)')}`
        : html``;
    sendPage(response, {
      title: vendor.name,
      session,
      current: '/vendors',
      body: html`${notice}<dl class="facts"><dt>Vendor id</dt><dd><code>${vendor.id}</code></dd><dt>Released for production</dt><dd>${vendor.productionReleasedAt ? when(vendor.productionReleasedAt) : 'no'}</dd>
<dt>Purchases</dt><dd id="purchases-state">${purchasesState(limits)}</dd>
<dt>Enabled abilities</dt><dd>${vendor.enabledAbilities.join(', ') || '—'}</dd><dt>Payout funds available</dt><dd>${money(balances.availableCents)}</dd><dt>Reserved for open payouts</dt><dd>${money(balances.reservedCents)}</dd></dl>
<h2>Ledger corrections</h2>${correctionTable(corrections)}
<p id="vendor-records">Records: <a href="/vendors/${vendor.id}/purchases">Purchases</a> · <a href="/vendors/${vendor.id}/payouts">Payouts</a> · <a href="/vendors/${vendor.id}/batches">Batches</a> · <a href="/audit?vendor=${vendor.id}">Audit trail</a></p>
<p><a href="/vendors/${vendor.id}/payout-methods">Payout methods and fees</a> · <a href="/pricing">Pricing versions</a> (every vendor's)</p>
${fund}${staffRoleAllows(session.role, 'actions:propose') ? this.operationForms(session, vendor, limits) : html``}<h2>Proposals</h2>${proposals.length === 0 ? html`<p>None.</p>` : html`<ul>${proposals.map((proposal) => html`<li><a href="/proposals/${proposal.id}">${this.fourEyes.describe(proposal)}</a>: ${proposal.status} (${proposal.reason})</li>`)}</ul>`}
<h2>Audit records</h2>${auditTable(records, 'Audit trail', await this.namesIn(vendor, records))}`,
    }, status);
  }

  /** The vendor and the products its product records name, by id, so the records show names instead of ids. */
  private async namesIn(vendor: { id: string; name: string }, records: readonly StaffAuditRecord[]): Promise<Map<string, string>> {
    const numbersIn = (value: unknown): number[] =>
      typeof value === 'number' ? [value] : Array.isArray(value) ? value.flatMap(numbersIn) : value && typeof value === 'object' ? Object.values(value).flatMap(numbersIn) : [];
    const productIds = records.filter((record) => record.action.startsWith('products.')).flatMap((record) => numbersIn(record.details));
    return new Map([[vendor.id, vendor.name], ...(await this.catalogue.productNames(productIds))]);
  }

  private operationForms(session: StaffSession, vendor: { id: string; name: string; enabledAbilities: string[]; productionReleasedAt: Date | null }, limits: LimitsView): SafeHtml {
    const release = vendor.productionReleasedAt
      ? html``
      : html`<h2>Release for production</h2>${decisionForm(session, `/vendors/${vendor.id}/release`, html``, 'release-reason', 'Release for production')}`;
    // Each field shows the value in force: amounts in ZAR (the form takes ZAR, the database keeps cents).
    const limit = (name: string, label: string, value: number | null, zar = false) =>
      html`<label for="${name}">${label}</label><input id="${name}" name="${name}" type="text" inputmode="${zar ? 'decimal' : 'numeric'}" required value="${value === null ? '' : zar ? formatCents(BigInt(value)) : String(value)}">`;
    const abilities = html`<fieldset><legend>Enabled abilities and scopes</legend>${ALL_ABILITIES.map(
      (ability) => html`<label><input type="checkbox" name="abilities" value="${ability}"${vendor.enabledAbilities.includes(ability) ? html` checked` : html``}> ${ability}</label>`,
    )}</fieldset>`;
    // The control offers the one change the vendor's own state allows (a platform-wide pause is the CLI's).
    return html`${release}<h2>Purchases</h2><p>Now: ${purchasesState(limits)}.</p>${decisionForm(
      session,
      `/vendors/${vendor.id}/pause`,
      html`<input type="hidden" name="paused" value="${limits.paused_scope === 'vendor' ? 'false' : 'true'}">`,
      'pause-reason',
      limits.paused_scope === 'vendor' ? 'Resume purchases' : 'Pause purchases',
    )}
<h2>Spend limits</h2><p id="limits-now">${limits.configured ? html`In force: daily cap ${money(limits.daily_cap_minor ?? 0)}, per purchase at most ${money(limits.transaction_max_minor ?? 0)}, ${limits.velocity_count} purchases per ${limits.velocity_window_seconds} seconds.` : 'No spend limits are set yet.'}</p>
<p class="hint">Amounts in ZAR with two decimals. Raising the daily cap or the per-purchase maximum above the configured amount needs another approver.</p>
${decisionForm(
  session,
  `/vendors/${vendor.id}/limits`,
  html`${limit('daily_cap', 'Daily cap (ZAR)', limits.daily_cap_minor, true)}${limit('transaction_max', 'Per purchase maximum (ZAR)', limits.transaction_max_minor, true)}
${limit('velocity_count', 'Purchases per window', limits.velocity_count)}${limit('velocity_window_seconds', 'Window (seconds)', limits.velocity_window_seconds)}`,
  'limits-reason',
  'Set limits',
)}
<h2>Products</h2>${decisionForm(
      session,
      `/vendors/${vendor.id}/products`,
      html`<label for="products-ids">Products ("all" or product ids separated by commas)</label><input id="products-ids" name="products" type="text" required>
<label for="products-enable">Change</label><select id="products-enable" name="enable"><option value="true">enable</option><option value="false">withdraw</option></select>`,
      'products-reason',
      'Change products',
    )}
<h2>Abilities</h2>${decisionForm(session, `/vendors/${vendor.id}/abilities`, abilities, 'abilities-reason', 'Save abilities')}`;
  }
}

