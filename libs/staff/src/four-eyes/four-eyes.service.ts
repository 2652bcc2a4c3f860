import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DomainError, NotFoundError, UUID_PATTERN, ValidationFailedError } from '#common';
import type { StaffAuditEvent } from '../model/audit.js';
import { StaffActionRefused, StaffPermissionDenied } from '../model/errors.js';
import { requireReason, type Proposal, type ProposalStatus } from '../model/proposals.js';
import type { StaffActor } from '../model/staff.js';
import { rolesWith, staffRoleAllows, type StaffRole } from '../model/staff-roles.js';
import { StaffProposalRepository } from '../persistence/staff-proposal.repository.js';
import { StaffAuditLog } from '../persistence/staff-audit.repository.js';
import { StaffEvents } from '../staff-events.js';
import { ProposalKinds, type ExecutedProposal, type ProposalKind } from './proposal-kinds.js';

/** A signed-in staff member acting: who, with which role. */
export interface Decider extends StaffActor {
  staffUserId: string;
  role: StaffRole;
}

/**
 * Four eyes: a proposal carries a written reason and waits; a different staff member with the
 * kind's approve permission approves it, and the approval and its effect commit in one
 * transaction. The rule is enforced three times: here, in the guarded UPDATE (still pending,
 * decider ≠ proposer, decider active with an allowed role) and by the table's CHECK.
 */
@Injectable()
export class FourEyes {
  private readonly logger = new Logger(FourEyes.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly proposals: StaffProposalRepository,
    private readonly kinds: ProposalKinds,
    private readonly audit: StaffAuditLog,
    private readonly events: StaffEvents,
  ) {}

  /** `context`: how it was proposed, kept in the `proposal.created` record only (the CLI's `via: ops` and the OS user who ran it). */
  async propose(kindName: string, subjectId: string, params: Record<string, unknown>, reason: unknown, actor: Decider, context: Record<string, unknown> = {}): Promise<Proposal> {
    const kind = this.kind(kindName);
    if (!staffRoleAllows(actor.role, kind.proposePermission)) throw new StaffPermissionDenied(`Your role (${actor.role}) cannot propose this.`);
    const written = requireReason(reason);
    const id = await this.dataSource.transaction(async (manager) => {
      const prepared = await kind.prepare(manager, subjectId, params);
      const inserted = await this.proposals.insert(manager, { kind: kind.kind, ...prepared, reason: written, proposedBy: actor.staffUserId });
      if (!inserted) throw new StaffActionRefused('This item already has a proposal waiting for approval.');
      await this.audit.record(
        { actor, action: 'proposal.created', subjectType: prepared.subjectType, subjectId: prepared.subjectId, vendorId: prepared.vendorId, reason: written, proposalId: inserted, details: { kind: kind.kind, ...prepared.params, ...context } },
        manager,
      );
      return inserted;
    });
    const proposal = await this.get(id);
    // Those who may decide it are told it waits for them (the back-office mails them).
    await this.events.emit({ type: 'proposal.created', proposal, description: this.describe(proposal), approverRoles: rolesWith(kind.approvePermission) });
    return proposal;
  }

  /**
   * Approves and executes. When the kind refuses to execute (the item moved meanwhile, or the
   * provider's verified outcome says otherwise), nothing of the approval commits; the proposal
   * is then closed as `refused` with the reason, so it cannot be approved later by mistake.
   */
  async approve(id: string, approver: Decider, note: string | null = null): Promise<{ proposal: Proposal; executed: ExecutedProposal }> {
    const found = await this.get(id);
    const kind = this.kind(found.kind);
    this.assertMayDecide(kind, found, approver);
    let executed: ExecutedProposal;
    try {
      executed = await this.dataSource.transaction(async (manager) => {
        const proposal = await this.proposals.lockPending(manager, id);
        if (!proposal) throw new StaffActionRefused('This proposal was already decided.');
        if (!(await this.proposals.decide(manager, id, 'approved', approver.staffUserId, rolesWith(kind.approvePermission), note))) {
          throw new StaffActionRefused('You cannot approve this proposal.');
        }
        const result = await kind.execute(manager, proposal, approver);
        await this.audit.record(
          {
            ...aboutProposal(proposal),
            actor: { staffUserId: proposal.proposedBy, label: proposal.proposedByEmail },
            action: kind.auditAction,
            approvedBy: { staffUserId: approver.staffUserId, label: approver.label },
            details: { ...result.details, ...(note ? { approval_note: note } : {}), approver_address: approver.address ?? null },
          },
          manager,
        );
        return result;
      });
    } catch (error) {
      if (error instanceof StaffActionRefused && error.message === 'This proposal was already decided.') throw error;
      if (error instanceof StaffActionRefused || error instanceof DomainError) {
        await this.close(found, 'refused', approver, error.message, 'proposal.refused');
        throw error instanceof StaffActionRefused ? error : new StaffActionRefused(error.message);
      }
      throw error;
    }
    const proposal = await this.get(id);
    await this.events.emit({ type: 'proposal.approved', proposal, description: this.describe(proposal) });
    return { proposal, executed };
  }

  async reject(id: string, decider: Decider, note: unknown): Promise<Proposal> {
    const proposal = await this.get(id);
    const kind = this.kind(proposal.kind);
    this.assertMayDecide(kind, proposal, decider);
    const written = typeof note === 'string' ? note.trim() : '';
    if (written.length === 0) throw new ValidationFailedError({ note: ['Say why the proposal is rejected.'] });
    await this.close(proposal, 'rejected', decider, written, 'proposal.rejected');
    return this.get(id);
  }

  /** The proposer takes their own proposal back before anyone decided it. */
  async withdraw(id: string, actor: Decider): Promise<Proposal> {
    const proposal = await this.get(id);
    if (proposal.proposedBy !== actor.staffUserId) throw new StaffPermissionDenied('Only the person who proposed it can withdraw a proposal.');
    await this.dataSource.transaction(async (manager) => {
      if (!(await this.proposals.decide(manager, id, 'withdrawn', null, [], null, actor.staffUserId))) throw new StaffActionRefused('This proposal was already decided.');
      await this.audit.record({ ...aboutProposal(proposal), actor, action: 'proposal.withdrawn' }, manager);
    });
    return this.get(id);
  }

  async get(id: string): Promise<Proposal> {
    const proposal = UUID_PATTERN.test(id) ? await this.proposals.get(id) : null;
    if (!proposal) throw new NotFoundError('proposal');
    return proposal;
  }

  list(filter: { status?: ProposalStatus; subjectType?: string; subjectId?: string } = {}): Promise<Proposal[]> {
    return this.proposals.list(filter);
  }

  describe(proposal: Proposal): string {
    return this.kinds.get(proposal.kind)?.describe(proposal) ?? proposal.kind;
  }

  /** Whether this person could approve or reject it (the pages show the buttons only then; the server checks again). */
  mayDecide(proposal: Proposal, decider: Pick<Decider, 'staffUserId' | 'role'>): boolean {
    const kind = this.kinds.get(proposal.kind);
    return !!kind && proposal.status === 'pending' && proposal.proposedBy !== decider.staffUserId && staffRoleAllows(decider.role, kind.approvePermission);
  }

  private assertMayDecide(kind: ProposalKind, proposal: Proposal, decider: Decider): void {
    if (!staffRoleAllows(decider.role, kind.approvePermission)) throw new StaffPermissionDenied(`Your role (${decider.role}) cannot decide this proposal.`);
    if (proposal.proposedBy === decider.staffUserId) throw new StaffActionRefused('You proposed this: another person must approve or reject it.');
    if (proposal.status !== 'pending') throw new StaffActionRefused(`This proposal was already decided (${proposal.status}).`);
  }

  private async close(proposal: Proposal, status: 'rejected' | 'refused', decider: Decider, note: string, action: string): Promise<void> {
    const kind = this.kind(proposal.kind);
    await this.dataSource.transaction(async (manager) => {
      if (!(await this.proposals.decide(manager, proposal.id, status, decider.staffUserId, rolesWith(kind.approvePermission), note))) {
        throw new StaffActionRefused('This proposal was already decided.');
      }
      await this.audit.record({ ...aboutProposal(proposal), actor: decider, action, details: { note } }, manager);
    });
    if (status === 'refused') this.logger.warn({ proposalId: proposal.id, kind: proposal.kind }, 'Approved proposal refused on execution');
  }

  private kind(name: string): ProposalKind {
    const kind = this.kinds.get(name);
    if (!kind) throw new ValidationFailedError({ kind: [`Unknown proposal kind ${name}.`] });
    return kind;
  }
}

/** What every audit record of a proposal's decision names: its subject, vendor, reason and id. */
function aboutProposal(proposal: Proposal): Pick<StaffAuditEvent, 'subjectType' | 'subjectId' | 'vendorId' | 'reason' | 'proposalId'> {
  return { subjectType: proposal.subjectType, subjectId: proposal.subjectId, vendorId: proposal.vendorId, reason: proposal.reason, proposalId: proposal.id };
}
