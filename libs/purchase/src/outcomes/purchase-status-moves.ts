import { Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { PurchaseProviderTransaction } from '#providers';
import { recordWebhookEvent, type PurchaseWebhookEvent } from '#webhooks';
import { PurchaseTimings } from '../model/purchase-timings.js';
import type { ClaimedTransactionRecord, LockedTransactionRecord, TransactionRecord } from '../model/transaction-record.js';
import type { TransactionStatus } from '../model/transaction-status.js';
import type { TransactionView } from '../model/transaction-view.js';
import { SpendControlsRepository } from '../persistence/spend-controls.repository.js';
import { TRANSACTION_FIELD_OF_COLUMN } from '../persistence/transaction-shapes.js';
import { TransactionRepository, type StatusEvent } from '../persistence/transaction.repository.js';
import { PurchaseFulfilmentService } from './purchase-fulfilment.service.js';
import { PURCHASE_FAILURE_CODES, parseInstant } from './purchase-outcome.types.js';

/** Columns a recording changes, with the values they get when the transaction's row is written back. */
export type RowChanges = Map<string, unknown>;

/**
 * The status moves of one recording, in order (pending -> completed -> reversed is two): their
 * status events are written with the row, their webhook events right after.
 */
const movesOf = new WeakMap<RowChanges, StatusEvent[]>();

/** The record as a recording leaves it before it is written: the locked record with the collected changes applied. */
export function recordAfter(row: TransactionRecord, changes: RowChanges): TransactionRecord & { statusMoved: boolean } {
  const changed = [...changes].flatMap(([column, value]) => {
    const field = TRANSACTION_FIELD_OF_COLUMN.get(column);
    return field ? [[field, value] as const] : [];
  });
  return { ...row, ...(Object.fromEntries(changed) as Partial<TransactionRecord>), statusMoved: changes.has('status') };
}

/**
 * A recording's status moves and its write: what each move changes on the row (along the allowed
 * edges only; the caller holds the row lock) and the one statement that writes them back with
 * their status events, followed by their webhook events in the same database transaction.
 * Built by PurchaseOutcomesService from its own dependencies (not a provider of its own: every
 * module that provides PurchaseOutcomesService gets it with no change).
 */
export class PurchaseStatusMoves {
  private readonly logger = new Logger(PurchaseStatusMoves.name);

  constructor(
    private readonly fulfilments: PurchaseFulfilmentService,
    private readonly spendControls: SpendControlsRepository,
    private readonly timings: PurchaseTimings,
    private readonly transactions: TransactionRepository,
  ) {}

  /** The provider's delivery data, if the answer carries any (a repeated store keeps the first copy). */
  async storeFulfilment(manager: EntityManager, transactionId: string, found?: PurchaseProviderTransaction): Promise<void> {
    const fulfilment = found?.fulfilment?.reveal();
    if (fulfilment) await this.fulfilments.store(manager, transactionId, fulfilment);
  }

  /**
   * The row, its status events and the answered markers in one statement; the view the moves'
   * webhook events carry comes back in the same RETURNING.
   */
  async writeBack(manager: EntityManager, transactionId: string, changes: RowChanges, consumeMarkersUpTo?: string | null): Promise<TransactionRecord> {
    const moves = movesOf.get(changes) ?? [];
    const { record, view } = await this.transactions.write(manager, transactionId, changes, moves, { consumeMarkersUpTo, withView: moves.length > 0 });
    for (const move of moves) await this.recordStatusEvent(manager, record, move.to, view!);
    this.logMoves(transactionId, moves);
    return record;
  }

  /**
   * writeBack without the row's lock, for a recording made from a claim's read of the row: the row,
   * its status event, the answered markers and the move's webhook event (with its deliveries'
   * jobs) in ONE statement that is its own database transaction, applied only if the row is still
   * the version the claim read. Undefined, having written nothing, when it is not, or when the
   * recording moves twice (two webhook events): the caller records under the lock instead.
   */
  async writeBackIfUnchanged(claimed: ClaimedTransactionRecord, changes: RowChanges, consumeMarkersUpTo: string | null | undefined): Promise<TransactionRecord | undefined> {
    const moves = movesOf.get(changes) ?? [];
    if (moves.length > 1) return undefined;
    const record = await this.transactions.writeIfUnchanged(claimed, changes, moves[0], consumeMarkersUpTo);
    if (record) this.logMoves(claimed.id, moves);
    return record;
  }

  /** Logged once the moves are written, so a recording that falls back to the lock logs its moves once. */
  private logMoves(transactionId: string, moves: readonly StatusEvent[]): void {
    for (const { from, to } of moves) this.logger.log({ transactionId, from, to }, 'Transaction status verified');
  }

  /**
   * The webhook event of a status move, in the same transaction as the move (outbox): it exists
   * exactly when the move commits. Its data is the transaction as GET /transactions/{id} returns it
   * after the recording (never a PIN: the view carries only `fulfilment_available`). A recording
   * that moves twice (pending -> completed -> reversed) writes both events, each with that view.
   */
  private async recordStatusEvent(manager: EntityManager, record: TransactionRecord, to: TransactionStatus, view: TransactionView): Promise<void> {
    await recordWebhookEvent(manager, {
      vendorId: record.vendorId,
      type: `transaction.${to}` as PurchaseWebhookEvent,
      resourceId: record.id,
      data: view,
    });
  }

  async move(
    manager: EntityManager,
    row: LockedTransactionRecord,
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
        if (row.allowanceReturnedAt === null) {
          await this.spendControls.returnAllowance(manager, row.vendorId, row.admissionDay, row.chargeCents);
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
  }
}
