import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { jobSpec, QueueProducer, type PurchaseVerifyPayload } from '#queues';

/** The reasons a link of the polling chain is scheduled for. */
type CheckReason = Extract<PurchaseVerifyPayload, { check: number }>['reason'];

/**
 * Schedules the next verification lookup of a transaction. PostgreSQL holds the schedule
 * (`check_seq`, `next_check_at`); the BullMQ job is its delivery. The job id is derived from the
 * sequence, so re-enqueueing the same check (the sweeper after a Redis loss) collapses into one.
 */
@Injectable()
export class VerificationScheduler {
  private readonly logger = new Logger(VerificationScheduler.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly producer: QueueProducer,
  ) {}

  async scheduleCheck(transactionId: string, delayMs: number, reason: CheckReason): Promise<number> {
    const [rows] = await this.dataSource.query(
      `UPDATE purchase_transactions SET check_seq = check_seq + 1, next_check_at = now() + make_interval(secs => $2::double precision / 1000)
        WHERE id = $1 RETURNING check_seq`,
      [transactionId, delayMs],
    );
    const check = rows[0].check_seq as number;
    await this.enqueue(transactionId, check, delayMs, reason);
    return check;
  }

  async enqueue(transactionId: string, check: number, delayMs: number, reason: CheckReason): Promise<void> {
    try {
      await this.producer.add(jobSpec('purchase.verify', { transactionId, reason, check }), delayMs);
    } catch (error) {
      // PostgreSQL already holds the schedule; the sweeper re-enqueues overdue checks.
      this.logger.warn({ transactionId, err: (error as Error).message }, 'Could not enqueue a verification; the sweeper will retry');
    }
  }

  async stop(transactionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE purchase_transactions SET next_check_at = NULL WHERE id = $1`, [transactionId]);
  }
}
