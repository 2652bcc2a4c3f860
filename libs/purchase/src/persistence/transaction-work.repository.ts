import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { updateReturning } from '#database';
import type { TransactionStatus } from '../model/transaction-status.js';

export type SubmissionOutcome = 'accepted' | 'rejected' | 'http_error' | 'unknown';

/**
 * What the worker, the sweeper and settlement claim or pick up: the submission's one claim and its
 * outcome, the polling chain's schedule, overdue checks, unsubmitted purchases, unanswered
 * callback markers and purchases a settlement report left out.
 */
@Injectable()
export class TransactionWorkRepository {
  constructor(private readonly dataSource: DataSource) {}

  // --- submission ---

  /** The provider already held the transaction when we looked it up before creating it. */
  async markFoundBeforeCreate(transactionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE purchase_transactions SET submission_outcome = 'found_before_create' WHERE id = $1 AND submission_outcome IS NULL`, [
      transactionId,
    ]);
  }

  /**
   * Claims the one create attempt; false when it is no longer ours to make. next_check_at is a
   * safety net: if this process dies during the create, the sweeper finds the transaction overdue
   * and the lookups take over.
   *
   * The row is locked by its primary key and the claim's conditions are checked on the locked
   * row. Written as `UPDATE ... WHERE id = $1 AND status = 'pending' AND ...`, the conditions
   * match the predicate of purchase_transactions_unsubmitted_idx and the planner may scan that
   * whole index for the id: one claim then costs O(backlog), measured at 2 ms with 2,700
   * purchases waiting, and the worker slows down exactly when a backlog builds up.
   */
  async claimSubmission(transactionId: string, safetyNetMs: number): Promise<boolean> {
    const claimed = await updateReturning<{ id: string }>(
      this.dataSource,
      `WITH locked AS (SELECT id, status, submission_attempted_at, provider_transaction_id FROM purchase_transactions WHERE id = $1 FOR UPDATE)
       UPDATE purchase_transactions t SET submission_attempted_at = now(), next_check_at = now() + make_interval(secs => $2::double precision / 1000)
         FROM locked
        WHERE t.id = locked.id AND locked.status = 'pending' AND locked.submission_attempted_at IS NULL AND locked.provider_transaction_id IS NULL
        RETURNING t.id`,
      [transactionId, safetyNetMs],
    );
    return claimed.length > 0;
  }

  /** Nothing left this process: the claim is released so a later job may submit. */
  async releaseSubmissionClaim(transactionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE purchase_transactions SET submission_attempted_at = NULL WHERE id = $1`, [transactionId]);
  }

  /** The attempt's outcome and the first check of the polling chain, in one statement; returns that check's sequence. */
  async recordSubmissionAttempt(
    transactionId: string,
    attempt: { outcome: SubmissionOutcome; providerTransactionId: number | null; providerStatus: string | null; firstCheckDelayMs: number },
  ): Promise<number> {
    const [scheduled] = await updateReturning<{ check_seq: number }>(
      this.dataSource,
      `UPDATE purchase_transactions SET submission_ended_at = now(), submission_outcome = $2,
         provider_transaction_id = COALESCE(provider_transaction_id, $3), provider_status = COALESCE($4, provider_status),
         check_seq = check_seq + 1, next_check_at = now() + make_interval(secs => $5::double precision / 1000)
        WHERE id = $1 RETURNING check_seq`,
      [transactionId, attempt.outcome, attempt.providerTransactionId, attempt.providerStatus, attempt.firstCheckDelayMs],
    );
    return scheduled.check_seq;
  }

  // --- the polling chain ---

  /** Starts the next check of the polling chain; returns its sequence. */
  async scheduleCheck(transactionId: string, delayMs: number): Promise<number> {
    const [row] = await updateReturning<{ check_seq: number }>(
      this.dataSource,
      `UPDATE purchase_transactions SET check_seq = check_seq + 1, next_check_at = now() + make_interval(secs => $2::double precision / 1000)
        WHERE id = $1 RETURNING check_seq`,
      [transactionId, delayMs],
    );
    return row.check_seq;
  }

  async stopChecks(transactionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE purchase_transactions SET next_check_at = NULL WHERE id = $1`, [transactionId]);
  }

  // --- sweeper ---

  /** Checks overdue by more than `slackSeconds`, re-issued under a new sequence (rows another sweep holds are skipped). */
  async reissueOverdueChecks(slackSeconds: number, limit: number): Promise<{ id: string; checkSeq: number }[]> {
    const rows = await updateReturning<{ id: string; check_seq: number }>(
      this.dataSource,
      `UPDATE purchase_transactions SET check_seq = check_seq + 1, next_check_at = now()
        WHERE id IN (SELECT id FROM purchase_transactions
                      WHERE next_check_at < now() - make_interval(secs => $1) AND status IN ('pending', 'completed')
                      ORDER BY next_check_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, check_seq`,
      [slackSeconds, limit],
    );
    return rows.map((row) => ({ id: row.id, checkSeq: row.check_seq }));
  }

  /** Admitted more than `slackSeconds` ago, never claimed for submission, and no undispatched outbox row will submit them. */
  async unsubmitted(slackSeconds: number, limit: number): Promise<string[]> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      `SELECT t.id FROM purchase_transactions t
        WHERE t.status = 'pending' AND t.submission_attempted_at IS NULL AND t.provider_transaction_id IS NULL
          AND t.created_at < now() - make_interval(secs => $1)
          AND NOT EXISTS (SELECT 1 FROM outbox_messages o WHERE o.dispatched_at IS NULL AND o.job_name = 'purchase.submit' AND o.payload->>'transactionId' = t.id::text)
        ORDER BY t.created_at LIMIT $2`,
      [slackSeconds, limit],
    );
    return rows.map((row) => row.id);
  }

  /** Per transaction, the first marker no lookup has answered, received more than `slackSeconds` ago. */
  async openCallbackMarkers(slackSeconds: number, limit: number): Promise<{ transactionId: string; firstMarker: string }[]> {
    const rows = await this.dataSource.query<{ transaction_id: string; first_marker: string }[]>(
      `SELECT transaction_id, min(id) AS first_marker FROM purchase_callback_markers
        WHERE processed_at IS NULL AND received_at < now() - make_interval(secs => $1)
        GROUP BY transaction_id LIMIT $2`,
      [slackSeconds, limit],
    );
    return rows.map((row) => ({ transactionId: row.transaction_id, firstMarker: row.first_marker }));
  }

  // --- settlement ---

  /**
   * Purchases settled (completed) or reversed in [from, to) that no line of the settlement report
   * names, with their wholesale amount and the provider's id as the report would carry them.
   */
  async closedWithoutSettlementLine(
    reportId: string,
    from: Date,
    to: Date,
    // The settlement ingestor reads this and the payout domain's list alike: the two keep one shape.
  ): Promise<{ id: string; vendor_id: string; status: TransactionStatus; amount_cents: string; provider_reference: string | null }[]> {
    return this.dataSource.query(
      `SELECT t.id, t.vendor_id, t.status, t.wholesale_cents::text AS amount_cents, t.provider_transaction_id::text AS provider_reference
         FROM purchase_transactions t
        WHERE t.status IN ('completed', 'reversed')
          AND ((t.completed_at >= $2 AND t.completed_at < $3) OR (t.status = 'reversed' AND t.reversed_at >= $2 AND t.reversed_at < $3))
          AND NOT EXISTS (SELECT 1 FROM settlement_lines l WHERE l.report_id = $1 AND l.purchase_transaction_id = t.id)`,
      [reportId, from, to],
    );
  }
}
