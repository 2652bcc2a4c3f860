import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { readShape, updateReturning } from '#database';
import type { Proposal, ProposalStatus } from '../model/proposals.js';
import type { StaffRole } from '../model/staff-roles.js';

type Queryable = Pick<EntityManager, 'query'>;

const PROPOSAL = readShape<Proposal>({
  id: 'p.id', kind: 'p.kind', subjectType: 'p.subject_type', subjectId: 'p.subject_id', vendorId: 'p.vendor_id', params: 'p.params',
  reason: 'p.reason', status: 'p.status', proposedBy: 'p.proposed_by', proposedByEmail: 'pu.email', proposedAt: 'p.proposed_at',
  decidedBy: 'p.decided_by', decidedByEmail: 'du.email', decidedAt: 'p.decided_at', decisionNote: 'p.decision_note',
});
const SELECT = `SELECT ${PROPOSAL.columns}
  FROM staff_proposals p JOIN staff_users pu ON pu.id = p.proposed_by LEFT JOIN staff_users du ON du.id = p.decided_by`;

/** What a proposal is created with; the rest is its decision. */
export type NewProposal = Pick<Proposal, 'kind' | 'subjectType' | 'subjectId' | 'vendorId' | 'params' | 'reason' | 'proposedBy'>;

/** staff_proposals: four-eyes decisions. The table refuses a decider equal to the proposer and any change after the decision. */
@Injectable()
export class StaffProposalRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inserts a pending proposal; null when the subject already has one pending (the partial unique index). */
  async insert(manager: Queryable, proposal: NewProposal): Promise<string | null> {
    const rows: { id: string }[] = await manager.query(
      `INSERT INTO staff_proposals (kind, subject_type, subject_id, vendor_id, params, reason, proposed_by) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (subject_type, subject_id) WHERE status = 'pending' DO NOTHING RETURNING id`,
      [proposal.kind, proposal.subjectType, proposal.subjectId, proposal.vendorId, JSON.stringify(proposal.params), proposal.reason, proposal.proposedBy],
    );
    return rows[0]?.id ?? null;
  }

  async get(id: string, manager: Queryable = this.dataSource.manager): Promise<Proposal | null> {
    const [row] = await manager.query(`${SELECT} WHERE p.id = $1`, [id]);
    return row ?? null;
  }

  /** Locks a pending proposal for its decision; null when it is not pending (any more). */
  async lockPending(manager: Queryable, id: string): Promise<Proposal | null> {
    const locked = await manager.query(`SELECT id FROM staff_proposals WHERE id = $1 AND status = 'pending' FOR UPDATE`, [id]);
    return locked.length > 0 ? this.get(id, manager) : null;
  }

  /**
   * Decides a pending proposal. The guard repeats every rule in the statement itself: still
   * pending, the decider is not the proposer, and the decider is an active account holding one
   * of `deciderRoles`; a withdrawal (`decidedBy` null) is only the proposer's. False when refused.
   */
  async decide(manager: Queryable, id: string, status: Exclude<ProposalStatus, 'pending'>, decidedBy: string | null, deciderRoles: readonly StaffRole[], note: string | null, withdrawnBy?: string): Promise<boolean> {
    const rows = await updateReturning(
      manager,
      `UPDATE staff_proposals p SET status = $2, decided_by = $3, decided_at = now(), decision_note = $5
        WHERE p.id = $1 AND p.status = 'pending'
          AND ($3::uuid IS NULL OR (p.proposed_by <> $3 AND EXISTS (SELECT 1 FROM staff_users u WHERE u.id = $3 AND u.disabled_at IS NULL AND u.role = ANY($4::text[]))))
          AND ($3::uuid IS NOT NULL OR p.proposed_by = $6::uuid)
        RETURNING p.id`,
      [id, status, decidedBy, deciderRoles, note, withdrawnBy ?? null],
    );
    return rows.length === 1;
  }

  async list(filter: { status?: ProposalStatus; subjectType?: string; subjectId?: string; limit?: number } = {}): Promise<Proposal[]> {
    return this.dataSource.query(
      `${SELECT} WHERE ($1::text IS NULL OR p.status = $1) AND ($2::text IS NULL OR p.subject_type = $2) AND ($3::text IS NULL OR p.subject_id = $3)
        ORDER BY p.proposed_at DESC, p.id LIMIT $4`,
      [filter.status ?? null, filter.subjectType ?? null, filter.subjectId ?? null, filter.limit ?? 200],
    );
  }
}
