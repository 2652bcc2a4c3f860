import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape, type Queryable } from '#database';
import { centsOrNullColumn, type Cents } from '#money';
import type { VendorMethodRecord } from '../model/method-policy.js';


/** `payout_vendor_methods` as read (the cents as text, so the same shape reads them from JSON too). */
export const VENDOR_METHOD = readShape<VendorMethodRecord>({
  method: 'method', enabled: 'enabled', feeCents: centsOrNullColumn('fee_cents::text'),
  minimumCents: centsOrNullColumn('minimum_cents::text'), maximumCents: centsOrNullColumn('maximum_cents::text'),
});
const LIMITS = readShape<{ minimumCents: Cents | null; maximumCents: Cents | null }>({ minimumCents: centsOrNullColumn('minimum_cents'), maximumCents: centsOrNullColumn('maximum_cents') });

/** A vendor's switch, fee and tightened limits per payout method; no row means disabled. */
@Injectable()
export class VendorPayoutMethodRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The vendor's rows by method. */
  async forVendor(vendorId: string, manager: Queryable = this.dataSource): Promise<Map<string, VendorMethodRecord>> {
    const rows: object[] = await manager.query(`SELECT ${VENDOR_METHOD.columns} FROM payout_vendor_methods WHERE vendor_id = $1`, [vendorId]);
    return new Map(rows.map(VENDOR_METHOD.read).map((record) => [record.method, record]));
  }

  /** Creates the (disabled) row if missing; a missing vendor fails with 23503. */
  async ensureRow(manager: Queryable, vendorId: string, method: string): Promise<void> {
    await manager.query(`INSERT INTO payout_vendor_methods (vendor_id, method) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [vendorId, method]);
  }

  async setEnabled(manager: Queryable, vendorId: string, method: string, enabled: boolean): Promise<void> {
    await this.update(manager, vendorId, method, 'enabled = $3', [enabled]);
  }

  async setFee(manager: Queryable, vendorId: string, method: string, feeCents: Cents | null): Promise<void> {
    await this.update(manager, vendorId, method, 'fee_cents = $3', [feeCents === null ? null : feeCents.toString()]);
  }

  /** The current limits, locked until the caller's commit. */
  async lockLimits(manager: Queryable, vendorId: string, method: string): Promise<{ minimumCents: Cents | null; maximumCents: Cents | null }> {
    const [current]: object[] = await manager.query(`SELECT ${LIMITS.columns} FROM payout_vendor_methods WHERE vendor_id = $1 AND method = $2 FOR UPDATE`, [vendorId, method]);
    return LIMITS.read(current);
  }

  async setLimits(manager: Queryable, vendorId: string, method: string, minimumCents: Cents | null, maximumCents: Cents | null): Promise<void> {
    await this.update(manager, vendorId, method, 'minimum_cents = $3, maximum_cents = $4', [minimumCents?.toString() ?? null, maximumCents?.toString() ?? null]);
  }

  private async update(manager: Queryable, vendorId: string, method: string, assignment: string, extra: unknown[]): Promise<void> {
    await manager.query(`UPDATE payout_vendor_methods SET ${assignment}, updated_at = now() WHERE vendor_id = $1 AND method = $2`, [vendorId, method, ...extra]);
  }
}
