import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NOT_FOUND_PROOF_STREAK } from '#providers';
import { ReconciliationExceptionsService } from '#reconciliation';
import { clockAfterClaim, type ClaimedTransactionRecord, type LockedTransactionRecord, type TransactionRecord } from '../model/transaction-record.js';
import { isOpen, movesToward } from '../model/transaction-status.js';
import { SpendControlsRepository } from '../persistence/spend-controls.repository.js';
import { TransactionRepository } from '../persistence/transaction.repository.js';
import { PurchaseFulfilmentService } from './purchase-fulfilment.service.js';
import { PurchaseTimings } from '../model/purchase-timings.js';
import {
  PURCHASE_FAILURE_CODES,
  STAFF_RESOLUTION_STANDARD_MESSAGE,
  evidenceOf,
  lateCreationDedupeKey,
  verifiedOutcomeOf,
  type LateCreationEvidence,
  type ProviderObservation,
  type RecordingExtras,
  type StaffResolution,
} from './purchase-outcome.types.js';
import { PurchaseStatusMoves, recordAfter, type RowChanges } from './purchase-status-moves.js';

/** What a recording decided (PurchaseOutcomesService.collect), before it is written. */
interface CollectedRecording {
  changes: RowChanges;
  consumeMarkersUpTo: string | null | undefined;
  scheduledCheck: number | undefined;
}

/** Thrown by ROW_LOCK_NEEDED: the recording writes more than its row's statement can carry. */
class RowLockNeeded extends Error {}

/**
 * The manager of a recording made without the row's lock: any use of it (a fulfilment, the
 * allowance's return, an exception) throws RowLockNeeded before a statement is sent, and the
 * recording is made under the lock instead.
 */
const ROW_LOCK_NEEDED = new Proxy({} as EntityManager, {
  get: () => {
    throw new RowLockNeeded('this recording writes beyond its row: made under the row lock');
  },
});

/**
 * The only code that changes a transaction's status. It runs under the transaction's row lock
 * and moves status only along the allowed edges, so two lookups racing change it once.
 *
 * Every change of one recording is collected first and written as ONE `UPDATE ... RETURNING`
 * (with the status events, the answered callback markers and the view for the webhook event in
 * the same statement; the fulfilment or the allowance return where they apply): the verification
 * of a purchase is 5 statements with BEGIN and COMMIT, not 10, because round trips to PostgreSQL are
 * what the worker spends most of its time on (docs/BENCHMARKS.md).
 */
@Injectable()
export class PurchaseOutcomesService {
  private readonly logger = new Logger(PurchaseOutcomesService.name);
  private readonly moves: PurchaseStatusMoves;

  constructor(
    private readonly dataSource: DataSource,
    fulfilments: PurchaseFulfilmentService,
    spendControls: SpendControlsRepository,
    private readonly timings: PurchaseTimings,
    private readonly exceptions: ReconciliationExceptionsService,
    private readonly transactions: TransactionRepository,
  ) {
    this.moves = new PurchaseStatusMoves(fulfilments, spendControls, timings, transactions);
  }

  /**
   * Records one lookup; `statusMoved` says whether THIS recording changed the status. With
   * `extras`, a verification's marker consumption and the next link of its polling chain are
   * written in the same database transaction (and the chain in the same UPDATE), so a verified
   * move is one commit; `scheduledCheck` is then the sequence of the check it scheduled.
   *
   * With `claimed` (the record as a worker's claim read it), the recording is first made from that
   * read, without the row's lock: when all it changes is the row, its status event, the markers
   * and the webhook event, it is written as ONE statement that applies only if the row is still
   * the version the claim read (recordUnlocked). Otherwise, or if the row moved on, it is made
   * again from the locked row, as without `claimed`: the same rules decide from the same kind of
   * state either way, and only a write of the version they decided from is ever applied.
   */
  async record(
    transactionId: string,
    observation: ProviderObservation,
    extras: RecordingExtras = {},
    claimed?: ClaimedTransactionRecord,
  ): Promise<TransactionRecord & { statusMoved: boolean; scheduledCheck?: number }> {
    if (claimed) {
      const unlocked = await this.recordUnlocked(claimed, observation, extras);
      if (unlocked) return unlocked;
    }
    return this.dataSource.transaction(async (manager) => {
      const row = await this.transactions.lockRecord(manager, transactionId);
      if (!row) throw new Error(`transaction ${transactionId} vanished while being verified`);
      const { changes, consumeMarkersUpTo, scheduledCheck } = await this.collect(manager, row, observation, extras);
      return { ...(await this.moves.writeBack(manager, row.id, changes, consumeMarkersUpTo)), statusMoved: changes.has('status'), scheduledCheck };
    });
  }

  /**
   * The recording from the claim's read, at the database's time as the claim's clock tells it:
   * BEGIN, the locked read, the write, the webhook event and COMMIT become one statement (the
   * benchmark's per-purchase budget, docs/BENCHMARKS.md). A recording that would write anything
   * else (a fulfilment, the allowance's return, an exception for staff) touches the database
   * through its manager, which here refuses (RowLockNeeded) before anything is written; undefined
   * then, and when the row moved on since the claim.
   */
  private async recordUnlocked(
    claimed: ClaimedTransactionRecord,
    observation: ProviderObservation,
    extras: RecordingExtras,
  ): Promise<(TransactionRecord & { statusMoved: boolean; scheduledCheck?: number }) | undefined> {
    const row: LockedTransactionRecord = { ...claimed, now: clockAfterClaim(claimed.clock) };
    let collected: CollectedRecording;
    try {
      collected = await this.collect(ROW_LOCK_NEEDED, row, observation, extras);
    } catch (error) {
      if (error instanceof RowLockNeeded) return undefined;
      throw error;
    }
    const record = await this.moves.writeBackIfUnchanged(claimed, collected.changes, collected.consumeMarkersUpTo);
    return record ? { ...record, statusMoved: collected.changes.has('status'), scheduledCheck: collected.scheduledCheck } : undefined;
  }

  /**
   * What one lookup changes, decided from `row` (locked, or as a claim read it): the row's column
   * changes with the moves' status events, the markers it answers and the chain's next check.
   * Writes through `manager` only what the row's statement cannot carry (fulfilment, allowance,
   * exceptions).
   */
  private async collect(manager: EntityManager, row: LockedTransactionRecord, observation: ProviderObservation, extras: RecordingExtras): Promise<CollectedRecording> {
    const transactionId = row.id;
    const changes: RowChanges = new Map([['last_checked_at', row.now]]);
    if (observation.kind === 'found') {
      const found = observation.transaction;
      changes.set('provider_transaction_id', found.providerTransactionId);
      changes.set('provider_status', found.providerStatus);
      changes.set('not_found_streak', 0);
      if (row.status === 'failed') {
        // A failed purchase stays failed whatever the provider now holds: the allowance went back
        // and the vendor was told; only staff can settle that disagreement. The row keeps what
        // we concluded (no provider id written over the "not created" proof).
        changes.delete('provider_transaction_id');
        changes.delete('provider_status');
        changes.delete('not_found_streak');
        if (found.outcome !== 'failed') await this.raiseLateCreation(manager, row, evidenceOf(found));
      } else if (found.outcome !== 'in_progress') {
        const moves = movesToward(row.status, found.outcome);
        if (moves.length === 0 && row.status !== found.outcome) {
          this.logger.error({ transactionId, status: row.status, provider: found.outcome }, 'Provider outcome contradicts a final status; left for staff');
        }
        for (const move of moves) await this.moves.move(manager, row, changes, move, { found, reason: `provider ${found.providerStatus}` });
        // A PIN or eSIM can arrive on a later lookup of a completed purchase (the provider
        // delivered after it reported completion): stored once, the insert ignores an existing row.
        if (moves.length === 0 && row.status === 'completed') await this.moves.storeFulfilment(manager, row.id, found);
      }
    } else if (observation.kind === 'not_found') {
      await this.recordNotFound(manager, row, changes);
    } else if (observation.kind === 'mismatched') {
      await this.recordMismatched(manager, row, changes, observation);
    }
    // Markers are answered only by a lookup that answered; they are marked in the row's UPDATE.
    const consumeMarkersUpTo = observation.kind !== 'unavailable' ? extras.consumeMarkersUpTo : null;
    const scheduledCheck = extras.nextCheck ? this.planNextCheck(row, changes, extras.nextCheck) : undefined;
    return { changes, consumeMarkersUpTo, scheduledCheck };
  }

  /**
   * Applies the chain's next link to the collected changes: the row is locked, so the sequence
   * is the locked one plus one and the check is due from the transaction's clock. Returns the
   * new sequence when a check was scheduled.
   */
  private planNextCheck(row: LockedTransactionRecord, changes: RowChanges, plan: NonNullable<RecordingExtras['nextCheck']>): number | undefined {
    const next = plan(recordAfter(row, changes));
    if (next === 'keep') return undefined;
    if (next === 'stop') {
      changes.set('next_check_at', null);
      return undefined;
    }
    changes.set('check_seq', row.checkSeq + 1);
    changes.set('next_check_at', new Date(new Date(row.now).getTime() + next.delayMs));
    return row.checkSeq + 1;
  }

  /**
   * The provider holds a transaction (in any state but declined) for a purchase we failed after
   * proving it absent: it was created late. The purchase stays `failed` (allowance untouched, no
   * fulfilment stored or served) and staff get one reconciliation exception, whoever finds it
   * first: a callback's lookup here, or a settlement report line (other caller, same rule).
   * Returns true when this call raised the exception.
   */
  async recordLateCreation(transactionId: string, evidence: LateCreationEvidence, manager?: EntityManager): Promise<boolean> {
    const run = async (inner: EntityManager): Promise<boolean> => {
      const row = await this.transactions.lockRecord(inner, transactionId);
      if (row?.status !== 'failed') return false;
      return this.raiseLateCreation(inner, row, evidence);
    };
    return manager ? run(manager) : this.dataSource.transaction(run);
  }

  /**
   * Staff resolve a purchase in `review` that the provider cannot answer for (an approved
   * four-eyes proposal, in the approval's transaction). The move is the one a verified outcome
   * makes: failed returns the daily allowance once, completed starts the reversal watch, both
   * write the status event and the webhook event. Refused, changing nothing, when the purchase
   * has left review (a lookup proved its outcome: that stands) or the provider's last answer
   * contradicts the resolution. The status event's reason, which the vendor reads in the
   * purchase's history, carries the message written for the vendor (or the standard one), never
   * the staff's internal note.
   */
  async resolveByStaff(manager: EntityManager, transactionId: string, outcome: 'completed' | 'failed', vendorMessage: string | null): Promise<StaffResolution> {
    const row = await this.transactions.lockRecord(manager, transactionId);
    if (!row) return { resolved: false, reason: 'The purchase does not exist.' };
    if (row.status !== 'review') return { resolved: false, reason: `The purchase is ${row.status} now, from the provider's verified answer; it can no longer be resolved by hand.` };
    // The locked record carries the provider's last answer.
    const providerSaid = row.providerStatus;
    const verified = providerSaid ? verifiedOutcomeOf(providerSaid) : null;
    if (verified && verified !== outcome) return { resolved: false, reason: `The provider's last answer (${providerSaid}) contradicts ${outcome}.` };
    const changes: RowChanges = new Map();
    // The prefix marks a staff move for the invariant checker (staff-invariants.ts).
    const reason = `resolved by staff: ${vendorMessage ?? STAFF_RESOLUTION_STANDARD_MESSAGE}`.slice(0, 500);
    await this.moves.move(manager, row, changes, outcome, { reason, errorCode: PURCHASE_FAILURE_CODES.resolvedByStaff });
    return { resolved: true, record: await this.moves.writeBack(manager, row.id, changes) };
  }

  /** The verification window elapsed with the outcome still unknown: staff take over. */
  async moveToReview(transactionId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.transactions.lockRecord(manager, transactionId);
      if (row?.status !== 'pending') return false;
      const changes: RowChanges = new Map();
      await this.moves.move(manager, row, changes, 'review', { reason: 'verification window elapsed' });
      await this.moves.writeBack(manager, row.id, changes);
      return true;
    });
  }

  /**
   * Never submitted within the window. The caller has just looked the id up and the provider
   * holds nothing, and no create was ever attempted, so no money can have moved.
   */
  async failUnsubmitted(transactionId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.transactions.lockRecord(manager, transactionId);
      if (row?.status !== 'pending' || row.submissionAttemptedAt !== null) return false;
      const changes: RowChanges = new Map();
      await this.moves.move(manager, row, changes, 'failed', { reason: 'not submitted within the verification window', errorCode: PURCHASE_FAILURE_CODES.notSubmitted });
      await this.moves.writeBack(manager, row.id, changes);
      return true;
    });
  }

  /**
   * A lookup answered with another external id: no verdict and nothing moved, and asking again
   * would only repeat it, so instead of retrying for ever a pending purchase goes to review at
   * once and staff get a `reference_mismatch` exception (joined while open, a new one after a
   * resolved one: the answer is a new observation).
   */
  private async recordMismatched(manager: EntityManager, row: LockedTransactionRecord, changes: RowChanges, observation: Extract<ProviderObservation, { kind: 'mismatched' }>): Promise<void> {
    this.logger.error({ transactionId: row.id, providerTransactionId: observation.providerTransactionId }, 'Provider answered with another external id; exception raised for staff');
    await this.exceptions.raise(
      {
        domain: 'purchase',
        kind: 'reference_mismatch',
        dedupeKey: `purchase:${row.id}:reference_mismatch:lookup`,
        vendorId: row.vendorId,
        purchaseTransactionId: row.id,
        provider: 'purchase',
        details: {
          via: 'lookup',
          our_status: row.status,
          our_external_id: row.id,
          answered_external_id: observation.answeredExternalId,
          provider_transaction_id: observation.providerTransactionId,
          provider_status: observation.providerStatus,
        },
      },
      manager,
    );
    if (row.status === 'pending') await this.moves.move(manager, row, changes, 'review', { reason: 'provider answered with another external id' });
  }

  private async raiseLateCreation(manager: EntityManager, row: LockedTransactionRecord, evidence: LateCreationEvidence): Promise<boolean> {
    const raised = await this.exceptions.raise(
      {
        domain: 'purchase',
        kind: 'late_creation',
        dedupeKey: lateCreationDedupeKey(row.id),
        vendorId: row.vendorId,
        purchaseTransactionId: row.id,
        provider: 'purchase',
        reportDate: evidence.reportDate ?? null,
        details: {
          source: evidence.source,
          our_status: row.status,
          our_charge_cents: row.chargeCents.toString(),
          provider_transaction_id: evidence.providerTransactionId,
          provider_status: evidence.providerStatus,
          provider_wholesale_amount: evidence.wholesaleAmount ?? null,
          provider_wholesale_currency: evidence.wholesaleCurrency ?? null,
          provider_destination_amount: evidence.destinationAmount ?? null,
          provider_destination_unit: evidence.destinationUnit ?? null,
        },
      },
      manager,
    );
    if (raised) this.logger.error({ transactionId: row.id, providerStatus: evidence.providerStatus }, 'Provider created a transaction we had failed; exception raised for staff');
    return raised;
  }

  /**
   * A search that finds nothing proves the provider never created the transaction only once
   * any create we sent can no longer be in flight (the attempt ended, plus the settle period)
   * and it says so twice in a row. Until then it proves nothing.
   */
  private async recordNotFound(manager: EntityManager, row: LockedTransactionRecord, changes: RowChanges): Promise<void> {
    if (row.providerTransactionId !== null) {
      this.logger.error({ transactionId: row.id }, 'Provider no longer finds a transaction it acknowledged; left for staff');
      return;
    }
    if (row.submissionAttemptedAt === null || !isOpen(row.status)) return;
    const attempt = {
      attemptedAtMs: new Date(row.submissionAttemptedAt).getTime(),
      endedAtMs: row.submissionEndedAt ? new Date(row.submissionEndedAt).getTime() : null,
    };
    if (!this.timings.notFoundCounts(new Date(row.now).getTime(), attempt)) return;
    const streak = row.notFoundStreak + 1;
    changes.set('not_found_streak', streak);
    if (streak < NOT_FOUND_PROOF_STREAK) return;
    const errorCode = row.submissionOutcome === 'rejected' ? PURCHASE_FAILURE_CODES.rejected : PURCHASE_FAILURE_CODES.notCreated;
    await this.moves.move(manager, row, changes, 'failed', { reason: 'provider holds no transaction for our id', errorCode });
  }
}
