import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { readShape } from '#database';

export type ReviewDomain = 'purchase' | 'payout';

export interface ManualResolution {
  domain: ReviewDomain;
  itemId: string;
  vendorId: string;
  outcome: string;
  proposalId: string;
  resolvedAt: Date;
}

const RESOLUTION = readShape<ManualResolution>({
  domain: 'domain', itemId: 'item_id', vendorId: 'vendor_id', outcome: 'outcome', proposalId: 'proposal_id', resolvedAt: 'resolved_at',
});

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
    return RESOLUTION.first(await this.dataSource.query(`SELECT ${RESOLUTION.columns} FROM staff_manual_resolutions WHERE domain = $1 AND item_id = $2`, [domain, itemId]));
  }
}
