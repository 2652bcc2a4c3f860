import { Injectable } from '@nestjs/common';
import { VendorService } from '#auth';
import { ValidationFailedError } from '#common';
import { CatalogueService, SpendControlsService, type LimitsView, type ProductEnablement, type PauseState, type SpendLimits } from '#purchase';
import type { StaffActor } from '../model/staff.js';
import { StaffAuditLog } from '../staff-audit.js';

type Vendor = Awaited<ReturnType<VendorService['get']>>;

/**
 * The vendor operations that need one person, shared by the back-office's pages and the operator
 * CLI so both call the same domain service and write the same audit record (who, what, why,
 * before/after). VendorService saves on its own connection, so the record follows the change:
 * a crash between them loses a record, never a change the record claims.
 */
@Injectable()
export class VendorOperations {
  constructor(
    private readonly vendors: VendorService,
    private readonly audit: StaffAuditLog,
    private readonly spendControls: SpendControlsService,
    private readonly catalogue: CatalogueService,
  ) {}

  /** Enables or withdraws products for a vendor (`ops catalogue:enable` / `catalogue:disable`); the record keeps what was asked and the enabled ids after. */
  async setProducts(vendorId: string, enable: boolean, products: 'all' | number[], reason: string | null, actor: StaffActor): Promise<ProductEnablement> {
    const vendor = await this.vendors.get(vendorId);
    const after = await (enable ? this.catalogue.enableProducts(vendor.id, products) : this.catalogue.disableProducts(vendor.id, products));
    await this.record(actor, enable ? 'products.enabled' : 'products.disabled', vendor, reason, { requested: products }, { enabled_product_ids: after.enabled_product_ids });
    return after;
  }

  /** Sets a vendor's spend controls (`ops limits:set`) and records it; the back-office decides first whether it needs four eyes (VendorFunding). */
  async setLimits(vendorId: string, limits: SpendLimits, reason: string | null, actor: StaffActor): Promise<LimitsView> {
    const vendor = await this.vendors.get(vendorId);
    const change = await this.changeLimits(vendor.id, limits);
    await this.record(actor, 'limits.set', vendor, reason, change.before, change.after);
    return this.spendControls.limitsFor(vendor.id);
  }

  /** The change alone, for an approved `limits.set` proposal (FourEyes writes that record in the approval's transaction). */
  async changeLimits(vendorId: string, limits: SpendLimits): Promise<{ before: Record<string, unknown>; after: Record<string, unknown> }> {
    const before = limitsOf(await this.spendControls.limitsFor(vendorId));
    const after = limitsOf(await this.spendControls.setLimits(vendorId, limits));
    return { before, after };
  }

  async setPaused(vendorId: string, paused: boolean, reason: string | null, actor: StaffActor): Promise<PauseState> {
    const vendor = await this.vendors.get(vendorId);
    const before = (await this.spendControls.limitsFor(vendor.id)).purchases_paused;
    const state = await (paused ? this.spendControls.pause(vendor.id) : this.spendControls.resume(vendor.id));
    await this.record(actor, paused ? 'purchases.paused' : 'purchases.resumed', vendor, reason, { paused: before }, { paused: state.paused, paused_at: state.paused_at });
    return state;
  }

  async release(vendorId: string, reason: string | null, actor: StaffActor): Promise<Vendor> {
    const before = await this.vendors.get(vendorId);
    const after = await this.vendors.release(before.id);
    await this.record(actor, 'vendor.released', after, reason, { production_released_at: before.productionReleasedAt?.toISOString() ?? null }, { production_released_at: after.productionReleasedAt?.toISOString() ?? null });
    return after;
  }

  async setAbilities(vendorId: string, enable: string[], disable: string[], reason: string | null, actor: StaffActor): Promise<Vendor> {
    const before = await this.vendors.get(vendorId);
    const beforeAbilities = [...before.enabledAbilities];
    const after = await this.vendors.setAbilities(before.id, enable, disable);
    await this.record(actor, 'vendor.abilities_set', after, reason, { enabled_abilities: beforeAbilities }, { enabled_abilities: after.enabledAbilities });
    return after;
  }

  private record(actor: StaffActor, action: string, vendor: Vendor, reason: string | null, before: Record<string, unknown>, after: Record<string, unknown>): Promise<void> {
    return this.audit.record({ actor, action, subjectType: 'vendor', subjectId: vendor.id, vendorId: vendor.id, reason, details: { before, after } });
  }
}

/** The spend controls a staff change sets, as the audit record keeps them. */
function limitsOf(view: LimitsView): Record<string, unknown> {
  return { daily_cap_minor: view.daily_cap_minor, transaction_max_minor: view.transaction_max_minor, velocity_count: view.velocity_count, velocity_window_seconds: view.velocity_window_seconds };
}

/** "all" or comma-separated product ids, as the back-office form and `ops catalogue:enable --products` take them. */
export function productListOf(value: string | undefined): 'all' | number[] {
  const text = (value ?? '').trim();
  if (text === 'all') return 'all';
  const ids = text.split(',').map((item) => item.trim());
  if (ids.some((id) => !/^[1-9]\d{0,9}$/.test(id))) throw new ValidationFailedError({ products: ['Enter "all" or product ids separated by commas.'] });
  return ids.map(Number);
}
