import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NotFoundError, UUID_PATTERN, ValidationFailedError } from '#common';
import { PayoutLedgerService, PayoutReviewService, type AccountBalances, type LedgerCorrectionEntry, type PayoutContact } from '#payout';
import { PurchaseReviewService, type PurchaseStaffEvent } from '#purchase';
import {
  ReconciliationExceptionDeskService,
  ReconciliationExceptionsService,
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
import { StaffActionRefused } from '../model/errors.js';
import { requireReason, type Proposal } from '../model/proposals.js';
import { StaffAuditLog } from '../persistence/staff-audit.repository.js';
import { StaffAccounts } from '../staff-accounts.service.js';
import { ItemWork } from '../work/item-work.js';
import { disagreementWithProvider } from './exception-evidence.js';
import { correctionAmountOf, entryKindOf, EXCEPTION_SUBJECT } from './exception-proposal-kinds.js';

export { NOTE_MAX_LENGTH } from '../work/item-work.js';

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
  /** Claim, unclaim, reassign and notes, as every worked queue item has them. */
  private readonly work: ItemWork<ExceptionDeskItem>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly desk: ReconciliationExceptionDeskService,
    private readonly exceptions: ReconciliationExceptionsService,
    private readonly fourEyes: FourEyes,
    private readonly audit: StaffAuditLog,
    private readonly accounts: StaffAccounts,
    private readonly ledger: PayoutLedgerService,
    private readonly payoutReview: PayoutReviewService,
    private readonly purchaseReview: PurchaseReviewService,
  ) {
    this.work = new ItemWork<ExceptionDeskItem>(this.dataSource, this.audit, this.accounts, {
      subjectType: EXCEPTION_SUBJECT,
      actionPrefix: 'exception',
      noun: 'an exception',
      load: (manager, id) => this.desk.lock(manager, id),
      closed: (item) => (item.status === 'open' ? null : 'The exception is already resolved.'),
      setOwner: (manager, item, owner, expected) => this.desk.setOwner(manager, item.id, owner, expected),
      addNote: (manager, item, author, body) => this.desk.addNote(manager, item.id, author, body),
      details: (item) => ({ exception_kind: item.kind }),
    });
  }

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
      item.payoutId ? this.payoutReview.contacts(item.payoutId) : Promise.resolve([]),
      item.purchaseTransactionId ? this.purchaseReview.history(item.purchaseTransactionId) : Promise.resolve([]),
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
  async claim(id: string, actor: Decider): Promise<ExceptionDeskItem> {
    await this.work.claim(id, actor);
    return this.get(id);
  }

  /** The owner gives the exception back to the queue. */
  async unclaim(id: string, actor: Decider): Promise<ExceptionDeskItem> {
    await this.work.unclaim(id, actor);
    return this.get(id);
  }

  /** Hands the exception to another person who may work it (operator or approver), whoever owns it now. */
  async reassign(id: string, to: unknown, actor: Decider): Promise<ExceptionDeskItem> {
    await this.work.reassign(id, to, actor);
    return this.get(id);
  }

  /** An append-only note with its author and time (also on a resolved exception: what happened after). */
  async note(id: string, body: unknown, actor: Decider): Promise<ExceptionNote[]> {
    await this.work.note(id, body, actor);
    return this.desk.notes(id);
  }

  /**
   * Resolves with a named resolution. `no_money_moves` and `record_corrected` close it at once
   * (the latter only when the record now agrees with the provider); the money resolutions become
   * an `exception.resolve` proposal and nothing moves until another approver approves it. The
   * actor must own the exception; one nobody owns is claimed first. `context`: how it came (the CLI's).
   */
  async resolve(id: string, request: ResolutionRequest, actor: Decider, context: Record<string, unknown> = {}): Promise<ResolutionOutcome> {
    this.work.assertMayWork(actor);
    const resolution = request.resolution;
    if (!isExceptionResolutionKind(resolution)) throw new ValidationFailedError({ resolution: ['Choose a resolution.'] });
    const reason = requireReason(request.reason);
    const pending = (await this.fourEyes.list({ status: 'pending', subjectType: EXCEPTION_SUBJECT, subjectId: id }))[0];
    if (pending) throw new StaffActionRefused(`A resolution is waiting for a second person (${this.fourEyes.describe(pending)}): it is approved, rejected or withdrawn first.`);
    if (isMoneyResolution(resolution)) {
      // The form's mistakes first, so a refused proposal does not leave a claim behind.
      entryKindOf(resolution, request.direction);
      correctionAmountOf(request.amount);
      await this.onOpen(id, actor, (item, manager) => this.work.ownOrClaim(manager, item, actor));
      const params = { resolution, direction: request.direction, amount: request.amount };
      return { resolved: false, proposal: await this.fourEyes.propose('exception.resolve', id, params, reason, actor, context) };
    }
    const exception = await this.onOpen(id, actor, async (item, manager) => {
      await this.work.ownOrClaim(manager, item, actor);
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

  /** Runs `work` on the open exception under its row lock, and answers it as it is afterwards. */
  private async onOpen(id: string, actor: Decider, work: (item: ExceptionDeskItem, manager: EntityManager) => Promise<void>): Promise<ExceptionDeskItem> {
    await this.work.onOpen(id, actor, work);
    return this.get(id);
  }
}
