import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { VendorService } from '#auth';
import { ValidationFailedError } from '#common';
import { formatCents, type Cents } from '#money';
import { PayoutAccountService, PayoutLedgerService, PayoutMethodsService, type MethodConfigurationChange, type VendorMethodSetting } from '#payout';
import { PurchaseCatalogueService, PurchasePricingService, PurchaseSpendControlsService, type LimitsView, type PauseState, type ProductEnablement, type PublishedPricing, type SpendLimits } from '#purchase';
import type { StaffActor } from '../model/staff.js';
import { StaffAuditLog } from '../persistence/staff-audit.repository.js';

type Vendor = Awaited<ReturnType<VendorService['get']>>;

/**
 * The vendor operations one person may do, shared by the back-office's pages and the operator
 * CLI so both call the same domain service and write the same audit record (who, what, why,
 * before/after). Each change and its record commit in ONE transaction: the domain services take
 * the caller's manager, so a record that cannot be written leaves no change behind.
 */
@Injectable()
export class VendorOperations {
  constructor(
    private readonly dataSource: DataSource,
    private readonly vendors: VendorService,
    private readonly audit: StaffAuditLog,
    private readonly spendControls: PurchaseSpendControlsService,
    private readonly catalogue: PurchaseCatalogueService,
    private readonly pricing: PurchasePricingService,
    private readonly payoutMethods: PayoutMethodsService,
    private readonly payoutAccounts: PayoutAccountService,
    private readonly ledger: PayoutLedgerService,
  ) {}

  /** Enables or withdraws products for a vendor (`ops catalogue:enable` / `catalogue:disable`); the record keeps what was asked and the enabled ids after. */
  setProducts(vendorId: string, enable: boolean, products: 'all' | number[], reason: string | null, actor: StaffActor): Promise<ProductEnablement> {
    return this.onVendor(vendorId, async (vendor, manager) => {
      const after = await (enable ? this.catalogue.enableProducts(vendor.id, products, manager) : this.catalogue.disableProducts(vendor.id, products, manager));
      await this.record(manager, actor, enable ? 'products.enabled' : 'products.disabled', vendor, reason, { requested: products }, { enabled_product_ids: after.enabled_product_ids });
      return after;
    });
  }

  /**
   * Sets a vendor's spend controls (`ops limits:set`) and records it, unless `needsApproval` (the
   * back-office's four-eyes rule, VendorFunding) says the change must wait for a second person;
   * then nothing is written and the answer is null. The rule sees the limits as they stand once
   * the vendor's row is locked: judged on limits read before the lock, a raise could pass as "no
   * higher than now" while a concurrent change had just lowered them.
   */
  setLimits(vendorId: string, limits: SpendLimits, reason: string | null, actor: StaffActor, needsApproval = (_current: LimitsView) => false): Promise<LimitsView | null> {
    return this.onVendor(vendorId, async (vendor, manager) => {
      const current = await this.spendControls.limitsFor(vendor.id, manager);
      if (needsApproval(current)) return null;
      const change = await this.changeLimits(vendor.id, limits, manager, current);
      await this.record(manager, actor, 'limits.set', vendor, reason, change.before, change.after);
      return change.view;
    });
  }

  /**
   * The change alone, in the caller's transaction: for an approved `limits.set` proposal, FourEyes
   * writes that record and the approval in the same one. `current`: the limits the caller already
   * read in this transaction, otherwise read here.
   */
  async changeLimits(
    vendorId: string,
    limits: SpendLimits,
    manager: EntityManager,
    current?: LimitsView,
  ): Promise<{ before: Record<string, unknown>; after: Record<string, unknown>; view: LimitsView }> {
    const before = limitsOf(current ?? (await this.spendControls.limitsFor(vendorId, manager)));
    const view = await this.spendControls.setLimits(vendorId, limits, manager);
    return { before, after: limitsOf(view), view };
  }

  setPaused(vendorId: string, paused: boolean, reason: string | null, actor: StaffActor): Promise<PauseState> {
    return this.onVendor(vendorId, async (vendor, manager) => {
      const before = (await this.spendControls.limitsFor(vendor.id, manager)).purchases_paused;
      const state = await (paused ? this.spendControls.pause(vendor.id, manager) : this.spendControls.resume(vendor.id, manager));
      await this.record(manager, actor, paused ? 'purchases.paused' : 'purchases.resumed', vendor, reason, { paused: before }, { paused: state.paused, paused_at: state.paused_at });
      return state;
    });
  }

  /** The platform switch (`ops purchases:pause` / `resume` without --vendor): every vendor's new purchases; recorded with subject type `platform`. */
  setGloballyPaused(paused: boolean, reason: string | null, actor: StaffActor): Promise<PauseState> {
    return this.dataSource.transaction(async (manager) => {
      const before = await this.spendControls.globallyPaused(manager);
      const state = await (paused ? this.spendControls.pause(null, manager) : this.spendControls.resume(null, manager));
      await this.audit.record(
        { actor, action: paused ? 'purchases.paused' : 'purchases.resumed', subjectType: 'platform', subjectId: 'purchases', reason, details: { before: { paused: before }, after: { paused: state.paused, paused_at: state.paused_at } } },
        manager,
      );
      return state;
    });
  }

  /** A new vendor (`ops vendor:create`), every ability enabled and not released for production; recorded with its name. */
  createVendor(name: string, reason: string | null, actor: StaffActor): Promise<Vendor> {
    return this.dataSource.transaction(async (manager) => {
      const vendor = await this.vendors.create(name, manager);
      await this.record(manager, actor, 'vendor.created', vendor, reason, {}, { name: vendor.name, slug: vendor.slug, enabled_abilities: vendor.enabledAbilities });
      return vendor;
    });
  }

  release(vendorId: string, reason: string | null, actor: StaffActor): Promise<Vendor> {
    return this.onVendor(vendorId, async (before, manager) => {
      const releasedBefore = before.productionReleasedAt?.toISOString() ?? null;
      const after = await this.vendors.release(before.id, manager);
      await this.record(manager, actor, 'vendor.released', after, reason, { production_released_at: releasedBefore }, { production_released_at: after.productionReleasedAt?.toISOString() ?? null });
      return after;
    });
  }

  setAbilities(vendorId: string, enable: string[], disable: string[], reason: string | null, actor: StaffActor): Promise<Vendor> {
    return this.onVendor(vendorId, async (before, manager) => {
      const beforeAbilities = [...before.enabledAbilities];
      const after = await this.vendors.setAbilities(before.id, enable, disable, manager);
      await this.record(manager, actor, 'vendor.abilities_set', after, reason, { enabled_abilities: beforeAbilities }, { enabled_abilities: after.enabledAbilities });
      return after;
    });
  }

  /**
   * Publishes a pricing version (`ops pricing:publish`): vendor price = wholesale + margin for every
   * active product, for every vendor. The record (`pricing.published`, subject type `pricing`)
   * names the version before and after.
   */
  publishPricing(marginBps: number, reason: string | null, actor: StaffActor): Promise<PublishedPricing> {
    return this.dataSource.transaction(async (manager) => {
      // PurchasePricingService.publish serialises publications; take its lock first so "before" is the version this one replaces.
      await this.pricing.lockPublication(manager);
      const before = await this.pricing.currentVersion(manager);
      const published = await this.pricing.publish(marginBps, manager);
      await this.audit.record(
        {
          actor,
          action: 'pricing.published',
          subjectType: 'pricing',
          subjectId: String(published.id),
          reason,
          details: { before: { version_id: before?.id ?? null, margin_bps: before?.marginBps ?? null }, after: { version_id: published.id, margin_bps: published.margin_bps, product_count: published.product_count } },
        },
        manager,
      );
      return published;
    });
  }

  /**
   * Payout methods (`ops payout:methods`): enable/disable, per-method fees, min/max within the
   * catalogue's; the record keeps the change and the settings before and after. `check` sees the
   * settings as they stand once the vendor's row is locked and may refuse (throw) before anything
   * is written: the back-office refuses a change to a field someone else changed since its page was shown.
   */
  configurePayoutMethods(
    vendorId: string,
    change: MethodConfigurationChange,
    reason: string | null,
    actor: StaffActor,
    check?: (current: readonly VendorMethodSetting[]) => void,
  ): Promise<VendorMethodSetting[]> {
    return this.onVendor(vendorId, async (vendor, manager) => {
      const before = await this.payoutMethods.settingsOf(vendor.id, manager);
      check?.(before);
      const after = await this.payoutMethods.configure(vendor.id, change, manager);
      // Only the methods the change names, so the record reads as the change it was.
      const touched = new Set<string>([...(change.enable ?? []), ...(change.disable ?? []), ...Object.keys(change.fees ?? {}), ...Object.keys(change.limits ?? {})]);
      const named = (settings: readonly VendorMethodSetting[]) => methodsOf(settings.filter((setting) => touched.has(setting.method)));
      await this.record(manager, actor, 'payout.methods_set', vendor, reason, { methods: named(before) }, { methods: named(after), requested: requestedOf(change) });
      return after;
    });
  }

  /** The account's fee_per_payout (`ops payout:fee`). */
  setFeePerPayout(vendorId: string, feeCents: Cents, reason: string | null, actor: StaffActor): Promise<{ vendor_id: string; fee_per_payout: string }> {
    return this.onVendor(vendorId, async (vendor, manager) => {
      const before = await this.payoutAccounts.changeFeePerPayout(vendor.id, feeCents, manager);
      await this.record(manager, actor, 'payout.fee_set', vendor, reason, { fee_per_payout_cents: before.toString() }, { fee_per_payout_cents: feeCents.toString() });
      return { vendor_id: vendor.id, fee_per_payout: formatCents(feeCents) };
    });
  }

  /** Credits the prefunded payout account at once (`ops payout:fund`, and the back-office at or below the four-eyes threshold). */
  fund(vendorId: string, cents: Cents, note: string | null, reason: string | null, actor: StaffActor, details: Record<string, unknown> = {}) {
    return this.onVendor(vendorId, async (vendor, manager) => {
      const balances = await this.ledger.fund(vendor.id, cents, note?.slice(0, 500) ?? null, manager);
      await this.audit.record(
        { actor, action: 'payout.funded', subjectType: 'vendor', subjectId: vendor.id, vendorId: vendor.id, reason, details: { amount_cents: cents.toString(), available_after_cents: balances.availableCents.toString(), ...details } },
        manager,
      );
      return balances;
    });
  }

  /** Runs a change and its record in one transaction, the vendor's row locked so that changes to one vendor apply one after the other. */
  private onVendor<T>(vendorId: string, work: (vendor: Vendor, manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => work(await this.vendors.read(vendorId, manager), manager));
  }

  private record(manager: EntityManager, actor: StaffActor, action: string, vendor: Vendor, reason: string | null, before: Record<string, unknown>, after: Record<string, unknown>): Promise<void> {
    return this.audit.record({ actor, action, subjectType: 'vendor', subjectId: vendor.id, vendorId: vendor.id, reason, details: { before, after } }, manager);
  }
}

/** The spend controls a staff change sets, as the audit record keeps them. */
function limitsOf(view: LimitsView): Record<string, unknown> {
  return { daily_cap_minor: view.daily_cap_minor, transaction_max_minor: view.transaction_max_minor, velocity_count: view.velocity_count, velocity_window_seconds: view.velocity_window_seconds };
}

/** Methods as the audit record keeps them: amounts in cents as strings. */
function methodsOf(settings: readonly VendorMethodSetting[]): Record<string, unknown>[] {
  return settings.map((setting) => ({
    method: setting.method,
    enabled: setting.enabled,
    fee_cents: setting.feeCents?.toString() ?? null,
    minimum_cents: setting.minimumCents.toString(),
    maximum_cents: setting.maximumCents.toString(),
  }));
}

function requestedOf(change: MethodConfigurationChange): Record<string, unknown> {
  const cents = (value: Cents | null | undefined) => (value === undefined ? undefined : (value?.toString() ?? null));
  return {
    enable: change.enable ?? [],
    disable: change.disable ?? [],
    fees: Object.fromEntries(Object.entries(change.fees ?? {}).map(([method, fee]) => [method, cents(fee)])),
    limits: Object.fromEntries(Object.entries(change.limits ?? {}).map(([method, limits]) => [method, { minimum_cents: cents(limits.minimumCents), maximum_cents: cents(limits.maximumCents) }])),
  };
}

/** "all" or comma-separated product ids, as the back-office form and `ops catalogue:enable --products` take them. */
export function productListOf(value: string | undefined): 'all' | number[] {
  const text = (value ?? '').trim();
  if (text === 'all') return 'all';
  const ids = text.split(',').map((item) => item.trim());
  if (ids.some((id) => !/^[1-9]\d{0,9}$/.test(id))) throw new ValidationFailedError({ products: ['Enter "all" or product ids separated by commas.'] });
  return ids.map(Number);
}
