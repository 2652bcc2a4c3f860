import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError } from '#common';
import type { Queryable } from '#database';
import { isUuid } from '../model/uuid-pattern.js';

/**
 * The two facts about a vendor (`vendors`, owned by the auth lib) the purchase domain reads on
 * its own paths: whether the vendor exists (staff tools) and when staff released it for
 * production purchases. Read per request, so a release takes effect at once.
 */
@Injectable()
export class PurchaseVendorsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** NotFoundError('vendor') unless the id names a vendor (what staff tools answer for an unknown one). */
  async requireExists(vendorId: string, manager: Queryable = this.dataSource): Promise<void> {
    const rows = isUuid(vendorId) ? await manager.query<unknown[]>(`SELECT 1 FROM vendors WHERE id = $1`, [vendorId]) : [];
    if (rows.length === 0) throw new NotFoundError('vendor');
  }

  async productionReleasedAt(vendorId: string): Promise<Date | null> {
    const [row] = await this.dataSource.query<{ production_released_at: Date | null }[]>(`SELECT production_released_at FROM vendors WHERE id = $1`, [vendorId]);
    return row?.production_released_at ?? null;
  }
}
