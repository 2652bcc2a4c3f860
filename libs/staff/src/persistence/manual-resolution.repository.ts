import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export type ReviewDomain = 'purchase' | 'payout';

export interface ManualResolution {
  domain: ReviewDomain;
  itemId: string;
  vendorId: string;
  outcome: string;
  proposalId: string;
  resolvedAt: Date;
}

/** staff_manual_resolutions: one row per review item resolved by two staff (append-only, unique per item). */
@Injectable()
export class ManualResolutionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: Pick<EntityManager, 'query'>, resolution: Omit<ManualResolution, 'resolvedAt'>): Promise<void> {
    await manager.query(`INSERT INTO staff_manual_resolutions (domain, item_id, vendor_id, outcome, proposal_id) VALUES ($1, $2, $3, $4, $5)`, [
      resolution.domain,
      resolution.itemId,
      resolution.vendorId,
      resolution.outcome,
      resolution.proposalId,
    ]);
  }

  async forItem(domain: ReviewDomain, itemId: string): Promise<ManualResolution | null> {
    const rows: Array<{ domain: ReviewDomain; item_id: string; vendor_id: string; outcome: string; proposal_id: string; resolved_at: Date }> = await this.dataSource.query(
      `SELECT domain, item_id, vendor_id, outcome, proposal_id, resolved_at FROM staff_manual_resolutions WHERE domain = $1 AND item_id = $2`,
      [domain, itemId],
    );
    const row = rows[0];
    return row ? { domain: row.domain, itemId: row.item_id, vendorId: row.vendor_id, outcome: row.outcome, proposalId: row.proposal_id, resolvedAt: row.resolved_at } : null;
  }
}
