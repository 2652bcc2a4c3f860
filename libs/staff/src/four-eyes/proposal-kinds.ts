import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Proposal } from '../model/proposals.js';
import type { StaffActor } from '../model/staff.js';
import type { StaffPermission } from '../model/staff-roles.js';

/** What a kind's checks make of a proposal before it is stored. */
export type PreparedProposal = Pick<Proposal, 'subjectType' | 'subjectId' | 'vendorId' | 'params'>;

export interface ExecutedProposal {
  /** What the audit record keeps: ids, amounts as strings, statuses; never a secret. */
  details: Record<string, unknown>;
  /** Shown once to the approver and never stored (a new account's setup link). */
  reveal?: { label: string; value: string };
}

/** Who proposes and approves the decisions operators take: an operator or approver proposes, another approver approves. */
export const OPERATOR_PROPOSED = { proposePermission: 'actions:propose', approvePermission: 'actions:approve' } as const;

/**
 * One kind of four-eyes decision: who may propose and approve it, the checks made when it is
 * proposed (in the proposal's transaction), and what approval does (in the approval's
 * transaction, so the decision and its effect commit together or not at all).
 */
export interface ProposalKind {
  kind: string;
  /** The audit action written when an approved proposal took effect, e.g. `purchase.resolved`. */
  auditAction: string;
  proposePermission: StaffPermission;
  approvePermission: StaffPermission;
  prepare(manager: EntityManager, subjectId: string, params: Record<string, unknown>): Promise<PreparedProposal>;
  execute(manager: EntityManager, proposal: Proposal, approver: StaffActor): Promise<ExecutedProposal>;
  /** One line for the proposal lists, from the stored params. */
  describe(proposal: Pick<Proposal, 'subjectId' | 'params'>): string;
}

/** The kinds the app's modules registered at start (staff management here; the review resolutions in their own module). */
@Injectable()
export class ProposalKinds {
  private readonly kinds = new Map<string, ProposalKind>();

  register(kind: ProposalKind): void {
    if (this.kinds.has(kind.kind)) throw new Error(`proposal kind ${kind.kind} registered twice`);
    this.kinds.set(kind.kind, kind);
  }

  get(kind: string): ProposalKind | undefined {
    return this.kinds.get(kind);
  }
}
