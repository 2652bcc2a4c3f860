import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { centsFromDbValue, type Cents } from '#money';
import type { VendorMethodRecord } from '../model/method-policy.js';
import type { Queryable } from './queryable.js';


/** `payout_vendor_methods` as read. */
interface VendorMethodRow {
  method: string;
  enabled: boolean;
  fee_cents: string | null;
  minimum_cents: string | null;
  maximum_cents: string | null;
}

const centsOrNull = (value: string | null): Cents | null => (value === null ? null : centsFromDbValue(value));

function vendorMethodRecordOf(row: VendorMethodRow): VendorMethodRecord {
  return {
    method: row.method,
    enabled: row.enabled,
    feeCents: centsOrNull(row.fee_cents),
    minimumCents: centsOrNull(row.minimum_cents),
    maximumCents: centsOrNull(row.maximum_cents),
  };
}

/** A vendor's switch, fee and tightened limits per payout method; no row means disabled. */
@Injectable()
export class VendorPayoutMethodRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The vendor's rows by method. */
  async forVendor(vendorId: string): Promise<Map<string, VendorMethodRecord>> {
    const rows: VendorMethodRow[] = await this.dataSource.query(
      `SELECT method, enabled, fee_cents, minimum_cents, maximum_cents FROM payout_vendor_methods WHERE vendor_id = $1`,
      [vendorId],
    );
    return new Map(rows.map((row) => [row.method, vendorMethodRecordOf(row)]));
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
    const [current]: Array<{ minimum_cents: string | null; maximum_cents: string | null }> = await manager.query(
      `SELECT minimum_cents, maximum_cents FROM payout_vendor_methods WHERE vendor_id = $1 AND method = $2 FOR UPDATE`,
      [vendorId, method],
    );
    return { minimumCents: centsOrNull(current.minimum_cents), maximumCents: centsOrNull(current.maximum_cents) };
  }

  async setLimits(manager: Queryable, vendorId: string, method: string, minimumCents: Cents | null, maximumCents: Cents | null): Promise<void> {
    await this.update(manager, vendorId, method, 'minimum_cents = $3, maximum_cents = $4', [minimumCents?.toString() ?? null, maximumCents?.toString() ?? null]);
  }

  private async update(manager: Queryable, vendorId: string, method: string, assignment: string, extra: unknown[]): Promise<void> {
    await manager.query(`UPDATE payout_vendor_methods SET ${assignment}, updated_at = now() WHERE vendor_id = $1 AND method = $2`, [vendorId, method, ...extra]);
  }
}
