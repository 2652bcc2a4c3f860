import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { centsFromDbValue } from '#money';
import type { PurchaseProviderTransaction } from '#providers';
import { FulfilmentService } from '../fulfilment/fulfilment.service.js';
import { SpendControlsService } from '../spend-controls/spend-controls.service.js';
import { isOpen, movesToward, type TransactionStatus } from '../transactions/transaction-status.js';
import { PurchaseTimings } from './purchase-timings.js';

/** What one provider lookup said. */
export type ProviderObservation =
  | { kind: 'found'; transaction: PurchaseProviderTransaction }
  | { kind: 'not_found' }
  | { kind: 'unavailable'; reason: string };

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
} as const;

/** "Not found" must be seen this many times in a row, after the settle period, to count as proof. */
export const NOT_FOUND_PROOF_STREAK = 2;

export interface TransactionState {
  id: string;
  vendor_id: string;
  status: TransactionStatus;
  charge_cents: string;
  admission_day: string;
  created_at: Date;
  submission_attempted_at: Date | null;
  submission_ended_at: Date | null;
  submission_outcome: string | null;
  provider_transaction_id: string | null;
  allowance_returned_at: Date | null;
  not_found_streak: number;
  check_seq: number;
  next_check_at: Date | null;
  reversal_watch_until: Date | null;
}

export const TRANSACTION_STATE_COLUMNS = `id, vendor_id, status, charge_cents, to_char(admission_day, 'YYYY-MM-DD') AS admission_day, created_at,
  submission_attempted_at, submission_ended_at, submission_outcome, provider_transaction_id, allowance_returned_at,
  not_found_streak, check_seq, next_check_at, reversal_watch_until`;

/**
 * The only code that changes a transaction's status. It runs under the transaction's row lock
 * and moves status only along the allowed edges, so two lookups racing change it once.
 */
@Injectable()
export class PurchaseOutcomeRecorder {
  private readonly logger = new Logger(PurchaseOutcomeRecorder.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly fulfilments: FulfilmentService,
    private readonly spendControls: SpendControlsService,
    private readonly timings: PurchaseTimings,
  ) {}

  async load(transactionId: string): Promise<TransactionState | null> {
    const [row] = await this.dataSource.query(`SELECT ${TRANSACTION_STATE_COLUMNS} FROM purchase_transactions WHERE id = $1`, [transactionId]);
    return row ?? null;
  }

  async record(transactionId: string, observation: ProviderObservation): Promise<TransactionState> {
    return this.dataSource.transaction(async (manager) => {
      const [row] = (await manager.query(`SELECT ${TRANSACTION_STATE_COLUMNS} FROM purchase_transactions WHERE id = $1 FOR UPDATE`, [
        transactionId,
      ])) as TransactionState[];
      const [{ now }] = (await manager.query(`SELECT now() AS now`)) as { now: Date }[];
      await manager.query(`UPDATE purchase_transactions SET last_checked_at = $2 WHERE id = $1`, [transactionId, now]);

      if (observation.kind === 'found') {
        const found = observation.transaction;
        await manager.query(
          `UPDATE purchase_transactions SET provider_transaction_id = $2, provider_status = $3, not_found_streak = 0 WHERE id = $1`,
          [transactionId, found.providerTransactionId, found.providerStatus],
        );
        if (found.outcome !== 'in_progress') {
          const moves = movesToward(row.status, found.outcome);
          if (moves.length === 0 && row.status !== found.outcome) {
            this.logger.error({ transactionId, status: row.status, provider: found.outcome }, 'Provider outcome contradicts a final status; left for staff');
          }
          for (const move of moves) await this.move(manager, row, move, now, { found, reason: `provider ${found.providerStatus}` });
        }
      } else if (observation.kind === 'not_found') {
        await this.recordNotFound(manager, row, now);
      }
      const [after] = await manager.query(`SELECT ${TRANSACTION_STATE_COLUMNS} FROM purchase_transactions WHERE id = $1`, [transactionId]);
      return after as TransactionState;
    });
  }

  /** The verification window elapsed with the outcome still unknown: staff take over. */
  async moveToReview(transactionId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [row] = (await manager.query(`SELECT ${TRANSACTION_STATE_COLUMNS} FROM purchase_transactions WHERE id = $1 FOR UPDATE`, [
        transactionId,
      ])) as TransactionState[];
      if (row?.status !== 'pending') return false;
      const [{ now }] = await manager.query(`SELECT now() AS now`);
      await this.move(manager, row, 'review', now, { reason: 'verification window elapsed' });
      return true;
    });
  }

  /**
   * Never submitted within the window. The caller has just looked the id up and the provider
   * holds nothing, and no create was ever attempted, so no money can have moved.
   */
  async failUnsubmitted(transactionId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [row] = (await manager.query(`SELECT ${TRANSACTION_STATE_COLUMNS} FROM purchase_transactions WHERE id = $1 FOR UPDATE`, [
        transactionId,
      ])) as TransactionState[];
      if (row?.status !== 'pending' || row.submission_attempted_at !== null) return false;
      const [{ now }] = await manager.query(`SELECT now() AS now`);
      await this.move(manager, row, 'failed', now, { reason: 'not submitted within the verification window', errorCode: PURCHASE_FAILURE_CODES.notSubmitted });
      return true;
    });
  }

  /**
   * A search that finds nothing proves the provider never created the transaction only once
   * any create we sent can no longer be in flight (the attempt ended, plus the settle period)
   * and it says so twice in a row. Until then it proves nothing.
   */
  private async recordNotFound(manager: EntityManager, row: TransactionState, now: Date): Promise<void> {
    if (row.provider_transaction_id !== null) {
      this.logger.error({ transactionId: row.id }, 'Provider no longer finds a transaction it acknowledged; left for staff');
      return;
    }
    if (row.submission_attempted_at === null || !isOpen(row.status)) return;
    const attemptEnded = row.submission_ended_at
      ? new Date(row.submission_ended_at).getTime()
      : new Date(row.submission_attempted_at).getTime() + this.timings.providerTimeoutMs;
    if (new Date(now).getTime() < attemptEnded + this.timings.notFoundSettleMs) return;
    const streak = row.not_found_streak + 1;
    await manager.query(`UPDATE purchase_transactions SET not_found_streak = $2 WHERE id = $1`, [row.id, streak]);
    if (streak < NOT_FOUND_PROOF_STREAK) return;
    const errorCode = row.submission_outcome === 'rejected' ? PURCHASE_FAILURE_CODES.rejected : PURCHASE_FAILURE_CODES.notCreated;
    await this.move(manager, row, 'failed', now, { reason: 'provider holds no transaction for our id', errorCode });
  }

  private async move(
    manager: EntityManager,
    row: TransactionState,
    to: TransactionStatus,
    now: Date,
    context: { found?: PurchaseProviderTransaction; reason: string; errorCode?: string },
  ): Promise<void> {
    const from = row.status;
    const found = context.found;
    switch (to) {
      case 'completed': {
        const completedAt = parseInstant(found?.completedAt) ?? now;
        await manager.query(
          `UPDATE purchase_transactions SET status = 'completed', completed_at = $2, reversal_watch_until = $3::timestamptz + make_interval(secs => $4::double precision / 1000), updated_at = $3
            WHERE id = $1`,
          [row.id, completedAt, now, this.timings.reversalWatchMs],
        );
        const fulfilment = found?.fulfilment?.reveal();
        if (fulfilment) await this.fulfilments.store(manager, row.id, fulfilment);
        break;
      }
      case 'failed': {
        await manager.query(`UPDATE purchase_transactions SET status = 'failed', failed_at = $2, error_code = $3, next_check_at = NULL, updated_at = $2 WHERE id = $1`, [
          row.id,
          now,
          context.errorCode ?? PURCHASE_FAILURE_CODES.declined,
        ]);
        // The provider verifiably took no money: the admission day gets the charge back, once.
        if (row.allowance_returned_at === null) {
          await this.spendControls.returnDailyAllowance(manager, row.vendor_id, row.admission_day, centsFromDbValue(row.charge_cents));
          await manager.query(`UPDATE purchase_transactions SET allowance_returned_at = $2 WHERE id = $1`, [row.id, now]);
        }
        break;
      }
      case 'reversed': {
        // Never returns allowance: the charge stood when it was admitted.
        await manager.query(`UPDATE purchase_transactions SET status = 'reversed', reversed_at = $2, next_check_at = NULL, updated_at = $3 WHERE id = $1`, [
          row.id,
          parseInstant(found?.reversedAt) ?? now,
          now,
        ]);
        break;
      }
      case 'review': {
        await manager.query(`UPDATE purchase_transactions SET status = 'review', review_at = $2, next_check_at = NULL, updated_at = $2 WHERE id = $1`, [row.id, now]);
        break;
      }
      case 'pending':
        throw new Error('nothing moves back to pending');
    }
    await manager.query(
      `INSERT INTO purchase_transaction_events (transaction_id, from_status, to_status, provider_status, reason) VALUES ($1, $2, $3, $4, $5)`,
      [row.id, from, to, found?.providerStatus ?? null, context.reason],
    );
    row.status = to;
    this.logger.log({ transactionId: row.id, from, to }, 'Transaction status verified');
  }
}

function parseInstant(value: string | null | undefined): Date | null {
  if (!value) return null;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}
