import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { centsFromDbValue } from '#money';
import { NOT_FOUND_PROOF_STREAK, type PurchaseProviderTransaction } from '#providers';
import { ReconciliationExceptionsRepository } from '#reconciliation';
import { recordWebhookEvent, type PurchaseWebhookEvent } from '#webhooks';
import { FulfilmentService } from './fulfilment.service.js';
import type { LockedTransactionState, TransactionState } from '../model/transaction-record.js';
import { isOpen, movesToward, type TransactionStatus } from '../model/transaction-status.js';
import { SpendControlsRepository } from '../persistence/spend-controls.repository.js';
import { TransactionsRepository, type StatusEvent } from '../persistence/transactions.repository.js';
import type { TransactionView } from '../model/transaction-view.js';
import { PurchaseTimings } from '../model/purchase-timings.js';

/** What one provider lookup said. */
export type ProviderObservation =
  | { kind: 'found'; transaction: PurchaseProviderTransaction }
  | { kind: 'not_found' }
  | { kind: 'unavailable'; reason: string }
  /** The provider answered about another external id than ours: not evidence about our purchase. */
  | { kind: 'mismatched'; providerTransactionId: string; answeredExternalId: string | null; providerStatus: string };

/** Safe error codes a failed transaction may carry (vendor-visible). */
export const PURCHASE_FAILURE_CODES = {
  /** The provider (operator) declined the purchase; no money taken. */
  declined: 'PROVIDER_DECLINED',
  /** The provider refused the submission and, by lookup, holds no transaction. */
  rejected: 'PROVIDER_REJECTED',
  /** The submission failed or went unanswered and, by repeated lookup, the provider created nothing. */
  notCreated: 'PROVIDER_NOT_CREATED',
  /** The purchase could not be submitted within the verification window; the provider holds nothing. */
  notSubmitted: 'NOT_SUBMITTED',
  /**
   * The provider could not answer for it and platform staff, having checked with the provider
   * (four-eyes), resolved it as failed; no money taken. Not PROVIDER_NOT_CREATED: nobody proved
   * by lookup that the provider created nothing, and the provider may well have.
   */
  resolvedByStaff: 'RESOLVED_BY_STAFF',
} as const;

/** What the vendor reads on a purchase staff resolved, when the resolution gave no message of its own. */
export const STAFF_RESOLUTION_STANDARD_MESSAGE = 'Resolved by our support team after checking with the provider.';

/** What a staff resolution came to: moved, or refused with the reason (nothing changed). */
export type StaffResolution = { resolved: true; state: TransactionState } | { resolved: false; reason: string };

/** The final outcome a provider status names, if it names one (the provider's detailed statuses). */
function verifiedOutcomeOf(providerStatus: string): 'completed' | 'failed' | null {
  const status = providerStatus.toUpperCase();
  if (status === 'COMPLETED' || status === 'REVERSED') return 'completed';
  if (status === 'DECLINED' || status === 'REJECTED' || status === 'FAILED') return 'failed';
  return null;
}

/**
 * What proves the provider holds a transaction for a purchase we failed: a verified lookup, or a
 * line of the provider's settlement report (equally a provider statement). Never a PIN.
 */
export interface LateCreationEvidence {
  source: 'lookup' | 'settlement_report';
  providerTransactionId: string;
  /** The provider's own detailed status (e.g. `COMPLETED`). */
  providerStatus: string;
  /** The provider's wholesale amount and destination amount, exact decimal strings as it sent them. */
  wholesaleAmount?: string | null;
  wholesaleCurrency?: string | null;
  destinationAmount?: string | null;
  destinationUnit?: string | null;
  /** Johannesburg day of the settlement report, when the evidence is a report line. */
  reportDate?: string | null;
}

export function lateCreationDedupeKey(transactionId: string): string {
  return `purchase:${transactionId}:late_creation`;
}

/**
 * What comes after a recording in the transaction's polling chain, decided on the state the
 * recording leaves: another check after `delayMs`, no further automatic check (`stop`), or
 * nothing to change (`keep`).
 */
export type NextCheck = { delayMs: number } | 'stop' | 'keep';

/** What a verification writes in the recording's own database transaction besides the lookup. */
export interface RecordingExtras {
  /** Callback markers up to this id are answered (consumed unless the provider was unavailable). */
  consumeMarkersUpTo?: string | null;
  /** Plans the polling chain from the state after the recording; applied in the same UPDATE. */
  nextCheck?: (after: TransactionState & { statusMoved: boolean }) => NextCheck;
}

/** Columns the recorder may change, with the values they get when the transaction's row is written back. */
type RowChanges = Map<string, unknown>;

/**
 * The status moves of one recording, in order (pending -> completed -> reversed is two): their
 * status events are written with the row, their webhook events right after.
 */
const movesOf = new WeakMap<RowChanges, StatusEvent[]>();

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
export class PurchaseOutcomeRecorder {
  private readonly logger = new Logger(PurchaseOutcomeRecorder.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly fulfilments: FulfilmentService,
    private readonly spendControls: SpendControlsRepository,
    private readonly timings: PurchaseTimings,
    private readonly exceptions: ReconciliationExceptionsRepository,
    private readonly transactions: TransactionsRepository,
  ) {}

  /**
   * Records one lookup; `statusMoved` says whether THIS recording changed the status. With
   * `extras`, a verification's marker consumption and the next link of its polling chain are
   * written in the same database transaction (and the chain in the same UPDATE), so a verified
   * move is one commit; `scheduledCheck` is then the sequence of the check it scheduled.
   */
  async record(
    transactionId: string,
    observation: ProviderObservation,
    extras: RecordingExtras = {},
  ): Promise<TransactionState & { statusMoved: boolean; scheduledCheck?: number }> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.transactions.lockState(manager, transactionId);
      if (!row) throw new Error(`transaction ${transactionId} vanished while being verified`);
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
          for (const move of moves) await this.move(manager, row, changes, move, { found, reason: `provider ${found.providerStatus}` });
          // A PIN or eSIM can arrive on a later lookup of a completed purchase (the provider
          // delivered after it reported completion): stored once, the insert ignores an existing row.
          if (moves.length === 0 && row.status === 'completed') await this.storeFulfilment(manager, row.id, found);
        }
      } else if (observation.kind === 'not_found') {
        await this.recordNotFound(manager, row, changes);
      } else if (observation.kind === 'mismatched') {
        await this.recordMismatched(manager, row, changes, observation);
      }
      // Markers are answered only by a lookup that answered; they are marked in the row's UPDATE.
      const consumeMarkersUpTo = observation.kind !== 'unavailable' ? extras.consumeMarkersUpTo : null;
      const scheduledCheck = extras.nextCheck ? this.planNextCheck(row, changes, extras.nextCheck) : undefined;
      return { ...(await this.writeBack(manager, row.id, changes, consumeMarkersUpTo)), statusMoved: changes.has('status'), scheduledCheck };
    });
  }

  /**
   * Applies the chain's next link to the collected changes: the row is locked, so the sequence
   * is the locked one plus one and the check is due from the transaction's clock. Returns the
   * new sequence when a check was scheduled.
   */
  private planNextCheck(row: LockedTransactionState, changes: RowChanges, plan: NonNullable<RecordingExtras['nextCheck']>): number | undefined {
    const after = { ...row, ...(Object.fromEntries(changes) as Partial<TransactionState>), statusMoved: changes.has('status') };
    const next = plan(after);
    if (next === 'keep') return undefined;
    if (next === 'stop') {
      changes.set('next_check_at', null);
      return undefined;
    }
    changes.set('check_seq', row.check_seq + 1);
    changes.set('next_check_at', new Date(new Date(row.now).getTime() + next.delayMs));
    return row.check_seq + 1;
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
      const row = await this.transactions.lockState(inner, transactionId);
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
    const row = await this.transactions.lockState(manager, transactionId);
    if (!row) return { resolved: false, reason: 'The purchase does not exist.' };
    if (row.status !== 'review') return { resolved: false, reason: `The purchase is ${row.status} now, from the provider's verified answer; it can no longer be resolved by hand.` };
    const providerSaid = (await this.transactions.staffItem(transactionId, manager))?.provider_status ?? null;
    const verified = providerSaid ? verifiedOutcomeOf(providerSaid) : null;
    if (verified && verified !== outcome) return { resolved: false, reason: `The provider's last answer (${providerSaid}) contradicts ${outcome}.` };
    const changes: RowChanges = new Map();
    // The prefix marks a staff move for the invariant checker (staff-invariants.ts).
    const reason = `resolved by staff: ${vendorMessage ?? STAFF_RESOLUTION_STANDARD_MESSAGE}`.slice(0, 500);
    await this.move(manager, row, changes, outcome, { reason, errorCode: PURCHASE_FAILURE_CODES.resolvedByStaff });
    return { resolved: true, state: await this.writeBack(manager, row.id, changes) };
  }

  /** The verification window elapsed with the outcome still unknown: staff take over. */
  async moveToReview(transactionId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.transactions.lockState(manager, transactionId);
      if (row?.status !== 'pending') return false;
      const changes: RowChanges = new Map();
      await this.move(manager, row, changes, 'review', { reason: 'verification window elapsed' });
      await this.writeBack(manager, row.id, changes);
      return true;
    });
  }

  /**
   * Never submitted within the window. The caller has just looked the id up and the provider
   * holds nothing, and no create was ever attempted, so no money can have moved.
   */
  async failUnsubmitted(transactionId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.transactions.lockState(manager, transactionId);
      if (row?.status !== 'pending' || row.submission_attempted_at !== null) return false;
      const changes: RowChanges = new Map();
      await this.move(manager, row, changes, 'failed', { reason: 'not submitted within the verification window', errorCode: PURCHASE_FAILURE_CODES.notSubmitted });
      await this.writeBack(manager, row.id, changes);
      return true;
    });
  }

  /**
   * A lookup answered with another external id: no verdict and nothing moved, and asking again
   * would only repeat it, so instead of retrying for ever a pending purchase goes to review at
   * once and staff get a `reference_mismatch` exception (joined while open, a new one after a
   * resolved one: the answer is a new observation).
   */
  private async recordMismatched(manager: EntityManager, row: LockedTransactionState, changes: RowChanges, observation: Extract<ProviderObservation, { kind: 'mismatched' }>): Promise<void> {
    this.logger.error({ transactionId: row.id, providerTransactionId: observation.providerTransactionId }, 'Provider answered with another external id; exception raised for staff');
    await this.exceptions.raise(
      {
        domain: 'purchase',
        kind: 'reference_mismatch',
        dedupeKey: `purchase:${row.id}:reference_mismatch:lookup`,
        vendorId: row.vendor_id,
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
    if (row.status === 'pending') await this.move(manager, row, changes, 'review', { reason: 'provider answered with another external id' });
  }

  private async raiseLateCreation(manager: EntityManager, row: LockedTransactionState, evidence: LateCreationEvidence): Promise<boolean> {
    const raised = await this.exceptions.raise(
      {
        domain: 'purchase',
        kind: 'late_creation',
        dedupeKey: lateCreationDedupeKey(row.id),
        vendorId: row.vendor_id,
        purchaseTransactionId: row.id,
        provider: 'purchase',
        reportDate: evidence.reportDate ?? null,
        details: {
          source: evidence.source,
          our_status: row.status,
          our_charge_cents: String(row.charge_cents),
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

  /** The provider's delivery data, if the answer carries any (a repeated store keeps the first copy). */
  private async storeFulfilment(manager: EntityManager, transactionId: string, found?: PurchaseProviderTransaction): Promise<void> {
    const fulfilment = found?.fulfilment?.reveal();
    if (fulfilment) await this.fulfilments.store(manager, transactionId, fulfilment);
  }

  /**
   * The row, its status events and the answered markers in one statement; the view the moves'
   * webhook events carry comes back in the same RETURNING.
   */
  private async writeBack(manager: EntityManager, transactionId: string, changes: RowChanges, consumeMarkersUpTo?: string | null): Promise<TransactionState> {
    const moves = movesOf.get(changes) ?? [];
    const { state, view } = await this.transactions.writeState(manager, transactionId, changes, moves, { consumeMarkersUpTo, withView: moves.length > 0 });
    for (const move of moves) await this.recordStatusEvent(manager, state, move.to, view!);
    return state;
  }

  /**
   * The webhook event of a status move, in the same transaction as the move (outbox): it exists
   * exactly when the move commits. Its data is the transaction as GET /transactions/{id} returns it
   * after the recording (never a PIN: the view carries only `fulfilment_available`). A recording
   * that moves twice (pending -> completed -> reversed) writes both events, each with that view.
   */
  private async recordStatusEvent(manager: EntityManager, state: TransactionState, to: TransactionStatus, view: TransactionView): Promise<void> {
    await recordWebhookEvent(manager, {
      vendorId: state.vendor_id,
      type: `transaction.${to}` as PurchaseWebhookEvent,
      resourceId: state.id,
      data: view,
    });
  }

  /**
   * A search that finds nothing proves the provider never created the transaction only once
   * any create we sent can no longer be in flight (the attempt ended, plus the settle period)
   * and it says so twice in a row. Until then it proves nothing.
   */
  private async recordNotFound(manager: EntityManager, row: LockedTransactionState, changes: RowChanges): Promise<void> {
    if (row.provider_transaction_id !== null) {
      this.logger.error({ transactionId: row.id }, 'Provider no longer finds a transaction it acknowledged; left for staff');
      return;
    }
    if (row.submission_attempted_at === null || !isOpen(row.status)) return;
    const attempt = {
      attemptedAtMs: new Date(row.submission_attempted_at).getTime(),
      endedAtMs: row.submission_ended_at ? new Date(row.submission_ended_at).getTime() : null,
    };
    if (!this.timings.notFoundCounts(new Date(row.now).getTime(), attempt)) return;
    const streak = row.not_found_streak + 1;
    changes.set('not_found_streak', streak);
    if (streak < NOT_FOUND_PROOF_STREAK) return;
    const errorCode = row.submission_outcome === 'rejected' ? PURCHASE_FAILURE_CODES.rejected : PURCHASE_FAILURE_CODES.notCreated;
    await this.move(manager, row, changes, 'failed', { reason: 'provider holds no transaction for our id', errorCode });
  }

  private async move(
    manager: EntityManager,
    row: LockedTransactionState,
    changes: RowChanges,
    to: TransactionStatus,
    context: { found?: PurchaseProviderTransaction; reason: string; errorCode?: string },
  ): Promise<void> {
    const { now } = row;
    const from = row.status;
    const found = context.found;
    changes.set('status', to);
    changes.set('updated_at', now);
    // The status event is written with the row (writeBack), in the order of the moves.
    const event: StatusEvent = { from, to, providerStatus: found?.providerStatus ?? null, reason: context.reason };
    movesOf.set(changes, [...(movesOf.get(changes) ?? []), event]);
    switch (to) {
      case 'completed': {
        changes.set('completed_at', parseInstant(found?.completedAt) ?? now);
        changes.set('reversal_watch_until', new Date(new Date(now).getTime() + this.timings.reversalWatchMs));
        await this.storeFulfilment(manager, row.id, found);
        break;
      }
      case 'failed': {
        changes.set('failed_at', now);
        changes.set('error_code', context.errorCode ?? PURCHASE_FAILURE_CODES.declined);
        changes.set('next_check_at', null);
        // The provider verifiably took no money: the admission day gets the charge back, once.
        if (row.allowance_returned_at === null) {
          await this.spendControls.returnAllowance(manager, row.vendor_id, row.admission_day, centsFromDbValue(row.charge_cents));
          changes.set('allowance_returned_at', now);
        }
        break;
      }
      case 'reversed': {
        // Never returns allowance: the charge stood when it was admitted.
        changes.set('reversed_at', parseInstant(found?.reversedAt) ?? now);
        changes.set('next_check_at', null);
        break;
      }
      case 'review': {
        changes.set('review_at', now);
        changes.set('next_check_at', null);
        break;
      }
      case 'pending':
        throw new Error('nothing moves back to pending');
    }
    row.status = to;
    this.logger.log({ transactionId: row.id, from, to }, 'Transaction status verified');
  }
}

function evidenceOf(found: PurchaseProviderTransaction): LateCreationEvidence {
  return {
    source: 'lookup',
    providerTransactionId: String(found.providerTransactionId),
    providerStatus: found.providerStatus,
    wholesaleAmount: found.wholesaleAmount,
    wholesaleCurrency: found.wholesaleCurrency,
    destinationAmount: found.destinationAmount,
    destinationUnit: found.destinationUnit,
  };
}

function parseInstant(value: string | null | undefined): Date | null {
  if (!value) return null;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}
