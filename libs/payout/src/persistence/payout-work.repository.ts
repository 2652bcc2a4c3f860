import { Injectable } from '@nestjs/common';
import sql from 'sql-template-tag';
import { DataSource } from 'typeorm';
import type { Queryable } from '#database';
import { jobSpec, outboxRowOf } from '#queues';
import type { PayoutRecord, PayoutStatusReason } from '../model/payout-record.js';
import { PAYOUT, PAYOUT_READ, statusLiteral } from './payout-shapes.js';

/**
 * What the payout workers and sweepers claim and schedule: a batch item's submission claim, the
 * chain of status polls (each link with its outbox row) and the overdue or unclaimed work the
 * sweeper finds.
 */
@Injectable()
export class PayoutWorkRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * For a batch item: sets the submission marker and schedules the first status poll (its outbox
   * row) in one statement, so both commit together. The claimed payout, or null when the marker
   * was set before (or the payout is not pending).
   */
  async claimSubmission(payoutId: string, now: Date, firstPoll: Date): Promise<PayoutRecord | null> {
    // The outbox row exists only if the claim matched.
    // The row is locked by its primary key and the claim's conditions are checked on the locked
    // row: written as `UPDATE ... WHERE id = $1 AND status = 'pending' AND submission_started_at
    // IS NULL`, the conditions match payouts_unsubmitted_idx's predicate and the planner may scan
    // every unsubmitted payout for the id, so claims get slower as a batch backlog grows.
    const statement = sql`WITH locked AS (
           SELECT id AS locked_id, status AS locked_status, submission_started_at AS locked_started_at FROM payouts WHERE id = ${payoutId}::uuid FOR UPDATE
         ), claimed AS (
           UPDATE payouts SET submission_started_at = ${now}::timestamptz, status_reason = ${'submitting' satisfies PayoutStatusReason}::text, poll_count = 0,
                  next_poll_at = ${firstPoll}::timestamptz, updated_at = now()
             FROM locked
            WHERE id = locked_id AND locked_status = ${statusLiteral('pending')} AND locked_started_at IS NULL RETURNING ${PAYOUT_READ}
         ), first_poll AS (${outboxRowOf(sql`claimed`, jobSpec('payout.poll-status', { payoutId, link: 0 }), firstPoll)})
         SELECT * FROM claimed`;
    return PAYOUT.first(await this.dataSource.query(statement.text, statement.values));
  }

  /** The next link of the status-poll chain and its outbox row, in one statement. */
  async scheduleNextPoll(manager: Queryable, payoutId: string, link: number, at: Date): Promise<void> {
    const statement = sql`WITH next_link AS (UPDATE payouts SET poll_count = ${link}::int, next_poll_at = ${at}::timestamptz WHERE id = ${payoutId}::uuid RETURNING id)
       ${outboxRowOf(sql`next_link`, jobSpec('payout.poll-status', { payoutId, link }), at)}`;
    await manager.query(statement.text, statement.values);
  }

  /** Ends the chain: `link` may never run. */
  async endPolls(manager: Queryable, payoutId: string, link: number): Promise<void> {
    await manager.query(`UPDATE payouts SET poll_count = $2, next_poll_at = NULL WHERE id = $1`, [payoutId, link]);
  }

  /** Sweeper: payouts whose next status poll is overdue by more than the grace period. */
  async overduePolls(graceMs: number, limit: number): Promise<Array<{ id: string; pollCount: number }>> {
    const rows: Array<{ id: string; poll_count: number }> = await this.dataSource.query(
      `SELECT id, poll_count FROM payouts WHERE next_poll_at < now() - make_interval(secs => $1::double precision / 1000) ORDER BY next_poll_at LIMIT $2`,
      [graceMs, limit],
    );
    return rows.map((row) => ({ id: row.id, pollCount: row.poll_count }));
  }

  /** Sweeper: batch items never claimed, older than the grace period (payouts_unsubmitted_idx's predicate, so the status is a literal). */
  async unclaimedItems(graceMs: number, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM payouts WHERE status = ${statusLiteral('pending').sql} AND submission_started_at IS NULL
          AND created_at < now() - make_interval(secs => $1::double precision / 1000) ORDER BY created_at LIMIT $2`,
      [graceMs, limit],
    );
    return rows.map((row) => row.id);
  }
}
