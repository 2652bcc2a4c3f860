import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NotFoundError, UUID_PATTERN, ValidationFailedError } from '#common';
import { PayoutLedger, PayoutRepository, type AccountBalances, type LedgerCorrectionEntry, type PayoutContact } from '#payout';
import { TransactionsRepository, type PurchaseStaffEvent } from '#purchase';
import {
  ExceptionDeskRepository,
  ReconciliationExceptionsRepository,
  isExceptionResolutionKind,
  isMoneyResolution,
  RECONCILIATION_EXCEPTION_KINDS,
  type ExceptionDeskFilter,
  type ExceptionDeskItem,
  type ExceptionEvidenceLine,
  type ExceptionNote,
  type ExceptionResolutionKind,
  type ReconciliationExceptionKind,
} from '#reconciliation';
import { FourEyes, type Decider } from '../four-eyes/four-eyes.service.js';
import { StaffActionRefused, StaffPermissionDenied } from '../model/errors.js';
import { requireReason, type Proposal } from '../model/proposals.js';
import { staffRoleAllows } from '../model/staff-roles.js';
import { StaffAuditLog } from '../persistence/staff-audit.repository.js';
import { StaffAccounts } from '../staff-accounts.service.js';
import { disagreementWithProvider } from './exception-evidence.js';
import { correctionAmountOf, entryKindOf, EXCEPTION_SUBJECT } from './exception-proposal-kinds.js';

export const NOTE_MAX_LENGTH = 4000;

/** Everything the exception's page shows beside the exception itself. */
export interface ExceptionEvidence {
  lines: ExceptionEvidenceLine[];
  /** A payout's submissions and lookups: what the provider said, when. */
  contacts: PayoutContact[];
  /** A purchase's status moves with the provider's status behind each. */
  history: PurchaseStaffEvent[];
  notes: ExceptionNote[];
  corrections: LedgerCorrectionEntry[];
  balances: AccountBalances | null;
}

/** What a resolution form or `ops reconcile:resolve` sends. */
export interface ResolutionRequest {
  resolution: unknown;
  reason: unknown;
  /** ledger_adjustment only: `debit` or `credit`. */
  direction?: unknown;
  /** Money resolutions: ZAR with two decimals. */
  amount?: unknown;
}

export type ResolutionOutcome = { resolved: true; exception: ExceptionDeskItem } | { resolved: false; proposal: Proposal };

/** What the approver of a money resolution sees: the exception, the account now, and the entry proposed. */
export interface ProposedCorrection {
  exception: ExceptionDeskItem;
  balances: AccountBalances;
  entryKind: string;
  amountCents: bigint;
  availableAfterCents: bigint;
}

export function exceptionFilterOf(query: { status?: unknown; kind?: unknown }): ExceptionDeskFilter {
  const status = query.status === 'resolved' || query.status === 'open' ? query.status : query.status === 'all' ? undefined : 'open';
  const kind = (RECONCILIATION_EXCEPTION_KINDS as readonly unknown[]).includes(query.kind) ? (query.kind as ReconciliationExceptionKind) : undefined;
  return { status, kind };
}

/**
 * Reconciliation exceptions as a queue staff work (docs/BACK-OFFICE.md, "Exceptions"): one owner
 * claims each, anyone adds notes, and the owner resolves it with a named resolution. Resolutions
 * that move money are four-eyes proposals (`exception.resolve`); the others close the exception
 * at once. Every step writes its staff audit record in the transaction of the change. The
 * back-office's pages and `ops reconcile:resolve` both come here.
 */
@Injectable()
export class ExceptionDesk {
  constructor(
    private readonly dataSource: DataSource,
    private readonly desk: ExceptionDeskRepository,
    private readonly exceptions: ReconciliationExceptionsRepository,
    private readonly fourEyes: FourEyes,
    private readonly audit: StaffAuditLog,
    private readonly accounts: StaffAccounts,
    private readonly ledger: PayoutLedger,
    private readonly payouts: PayoutRepository,
    private readonly transactions: TransactionsRepository,
  ) {}

  /** How many exceptions are open and how long the oldest has waited (the overview). */
  async depth(): Promise<{ count: number; oldestAgeSeconds: number }> {
    const summary = await this.exceptions.openSummary();
    return { count: summary.reduce((sum, row) => sum + row.open, 0), oldestAgeSeconds: Math.max(0, ...summary.map((row) => row.oldestAgeSeconds)) };
  }

  list(filter: ExceptionDeskFilter = {}): Promise<ExceptionDeskItem[]> {
    return this.desk.list(filter);
  }

  async get(id: string): Promise<ExceptionDeskItem> {
    const item = UUID_PATTERN.test(id) ? await this.desk.get(id) : null;
    if (!item) throw new NotFoundError('exception');
    return item;
  }

  async evidence(item: ExceptionDeskItem): Promise<ExceptionEvidence> {
    const [lines, contacts, history, notes, corrections, balances] = await Promise.all([
      this.desk.lines(item),
      item.payoutId ? this.payouts.contacts(item.payoutId) : Promise.resolve([]),
      item.purchaseTransactionId ? this.transactions.staffHistory(item.purchaseTransactionId) : Promise.resolve([]),
      this.desk.notes(item.id),
      this.ledger.corrections({ exceptionId: item.id }),
      item.vendorId ? this.ledger.balances(item.vendorId) : Promise.resolve(null),
    ]);
    return { lines, contacts, history, notes, corrections, balances };
  }

  /** The approver's view of an `exception.resolve` proposal. */
  async proposedCorrection(proposal: Proposal): Promise<ProposedCorrection | null> {
    if (proposal.kind !== 'exception.resolve' || !proposal.vendorId) return null;
    const [exception, balances] = await Promise.all([this.get(proposal.subjectId), this.ledger.balances(proposal.vendorId)]);
    const amountCents = BigInt(String(proposal.params.amount_cents));
    const entryKind = String(proposal.params.entry_kind);
    return { exception, balances, entryKind, amountCents, availableAfterCents: balances.availableCents + (entryKind === 'adjust_credit' ? amountCents : -amountCents) };
  }

  /** The actor becomes the owner of an open exception nobody owns. */
  claim(id: string, actor: Decider): Promise<ExceptionDeskItem> {
    return this.onOpen(id, actor, async (item, manager) => {
      if (item.ownerStaffId === actor.staffUserId) return;
      if (item.ownerStaffId) throw new StaffActionRefused(`${item.ownerEmail} owns this exception: ask them, or reassign it.`);
      await this.takeOwnership(manager, item, actor);
    });
  }

  /** The owner gives the exception back to the queue. */
  unclaim(id: string, actor: Decider): Promise<ExceptionDeskItem> {
    return this.onOpen(id, actor, async (item, manager) => {
      if (item.ownerStaffId !== actor.staffUserId) throw new StaffActionRefused('Only its owner can unclaim an exception; reassign it instead.');
      if (!(await this.desk.setOwner(manager, item.id, null, actor.staffUserId))) throw new StaffActionRefused('The exception changed meanwhile; reload the page.');
      await this.record(manager, actor, 'exception.unclaimed', item);
    });
  }

  /** Hands the exception to another person who may work it (operator or approver), whoever owns it now. */
  async reassign(id: string, to: unknown, actor: Decider): Promise<ExceptionDeskItem> {
    const target = typeof to === 'string' && UUID_PATTERN.test(to) ? await this.accounts.get(to).catch(() => null) : null;
    if (!target || !target.active || target.disabledAt || !staffRoleAllows(target.role, 'actions:propose')) {
      throw new ValidationFailedError({ owner: ['Choose an active operator or approver.'] });
    }
    return this.onOpen(id, actor, async (item, manager) => {
      if (item.ownerStaffId === target.id) return;
      if (!(await this.desk.setOwner(manager, item.id, target.id, item.ownerStaffId))) throw new StaffActionRefused('The exception changed meanwhile; reload the page.');
      await this.record(manager, actor, 'exception.reassigned', item, { from: item.ownerEmail, to: target.email });
    });
  }

  /** An append-only note with its author and time (also on a resolved exception: what happened after). */
  async note(id: string, body: unknown, actor: Decider): Promise<ExceptionNote[]> {
    this.assertMayWork(actor);
    const written = typeof body === 'string' ? body.trim() : '';
    if (written.length === 0 || written.length > NOTE_MAX_LENGTH) throw new ValidationFailedError({ note: [`Write the note (at most ${NOTE_MAX_LENGTH} characters).`] });
    const item = await this.get(id);
    await this.dataSource.transaction(async (manager) => {
      const noteId = await this.desk.addNote(manager, item.id, { staffUserId: actor.staffUserId, label: actor.label }, written);
      await this.record(manager, actor, 'exception.noted', item, { note_id: noteId, note: written });
    });
    return this.desk.notes(item.id);
  }

  /**
   * Resolves with a named resolution. `no_money_moves` and `record_corrected` close it at once
   * (the latter only when the record now agrees with the provider); the money resolutions become
   * an `exception.resolve` proposal and nothing moves until another approver approves it. The
   * actor must own the exception; one nobody owns is claimed first. `context`: how it came (the CLI's).
   */
  async resolve(id: string, request: ResolutionRequest, actor: Decider, context: Record<string, unknown> = {}): Promise<ResolutionOutcome> {
    this.assertMayWork(actor);
    const resolution = request.resolution;
    if (!isExceptionResolutionKind(resolution)) throw new ValidationFailedError({ resolution: ['Choose a resolution.'] });
    const reason = requireReason(request.reason);
    const pending = (await this.fourEyes.list({ status: 'pending', subjectType: EXCEPTION_SUBJECT, subjectId: id }))[0];
    if (pending) throw new StaffActionRefused(`A resolution is waiting for a second person (${this.fourEyes.describe(pending)}): it is approved, rejected or withdrawn first.`);
    if (isMoneyResolution(resolution)) {
      // The form's mistakes first, so a refused proposal does not leave a claim behind.
      entryKindOf(resolution, request.direction);
      correctionAmountOf(request.amount);
      await this.onOpen(id, actor, (item, manager) => this.ownOrClaim(manager, item, actor));
      const params = { resolution, direction: request.direction, amount: request.amount };
      return { resolved: false, proposal: await this.fourEyes.propose('exception.resolve', id, params, reason, actor, context) };
    }
    const exception = await this.onOpen(id, actor, async (item, manager) => {
      await this.ownOrClaim(manager, item, actor);
      if (resolution === 'record_corrected') {
        const disagreement = disagreementWithProvider(item);
        if (disagreement) throw new StaffActionRefused(`Not record_corrected: ${disagreement}`);
      }
      await this.close(manager, item, resolution, reason, actor, context);
    });
    return { resolved: true, exception };
  }

  private async close(manager: EntityManager, item: ExceptionDeskItem, kind: ExceptionResolutionKind, reason: string, actor: Decider, context: Record<string, unknown>): Promise<void> {
    const resolved = await this.desk.resolve(manager, item.id, { kind, resolution: reason, resolvedBy: actor.label, resolvedByStaffId: actor.staffUserId, proposalId: null });
    if (!resolved) throw new StaffActionRefused('The exception was resolved meanwhile.');
    await this.audit.record(
      { actor, action: 'exception.resolved', subjectType: EXCEPTION_SUBJECT, subjectId: item.id, vendorId: item.vendorId, reason, details: { resolution: kind, exception_kind: item.kind, ...context } },
      manager,
    );
  }

  private async ownOrClaim(manager: EntityManager, item: ExceptionDeskItem, actor: Decider): Promise<void> {
    if (item.ownerStaffId === actor.staffUserId) return;
    if (item.ownerStaffId) throw new StaffActionRefused(`${item.ownerEmail} owns this exception: only its owner resolves it (reassign it first).`);
    await this.takeOwnership(manager, item, actor);
  }

  private async takeOwnership(manager: EntityManager, item: ExceptionDeskItem, actor: Decider): Promise<void> {
    if (!(await this.desk.setOwner(manager, item.id, actor.staffUserId, null))) throw new StaffActionRefused('Someone claimed it meanwhile; reload the page.');
    await this.record(manager, actor, 'exception.claimed', item);
  }

  /** Runs `work` on the open exception under its row lock, and answers it as it is afterwards. */
  private async onOpen(id: string, actor: Decider, work: (item: ExceptionDeskItem, manager: EntityManager) => Promise<void>): Promise<ExceptionDeskItem> {
    this.assertMayWork(actor);
    const found = await this.get(id);
    await this.dataSource.transaction(async (manager) => {
      const item = await this.desk.lock(manager, found.id);
      if (!item) throw new NotFoundError('exception');
      if (item.status !== 'open') throw new StaffActionRefused('The exception is already resolved.');
      await work(item, manager);
    });
    return this.get(found.id);
  }

  private assertMayWork(actor: Decider): void {
    if (!staffRoleAllows(actor.role, 'actions:propose')) throw new StaffPermissionDenied(`Your role (${actor.role}) cannot work exceptions.`);
  }

  private record(manager: EntityManager, actor: Decider, action: string, item: ExceptionDeskItem, details: Record<string, unknown> = {}): Promise<void> {
    return this.audit.record({ actor, action, subjectType: EXCEPTION_SUBJECT, subjectId: item.id, vendorId: item.vendorId, details: { exception_kind: item.kind, ...details } }, manager);
  }
}
