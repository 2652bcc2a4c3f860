import { Injectable } from '@nestjs/common';
import { VendorService } from '#auth';
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
  ) {}

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
