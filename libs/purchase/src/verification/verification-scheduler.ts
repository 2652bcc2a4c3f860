import { Injectable, Logger } from '@nestjs/common';
import { jobSpec, QueueProducer, type PurchaseVerifyPayload } from '#queues';
import { TransactionWorkRepository } from '../persistence/transaction-work.repository.js';

/** The reasons a link of the polling chain is scheduled for. */
export type CheckReason = Extract<PurchaseVerifyPayload, { check: number }>['reason'];

/**
 * Schedules the next verification lookup of a transaction. PostgreSQL holds the schedule
 * (`check_seq`, `next_check_at`); the BullMQ job is its delivery. The job id is derived from the
 * sequence, so re-enqueueing the same check (the sweeper after a Redis loss) collapses into one.
 */
@Injectable()
export class VerificationScheduler {
  private readonly logger = new Logger(VerificationScheduler.name);

  constructor(
    private readonly transactions: TransactionWorkRepository,
    private readonly producer: QueueProducer,
  ) {}

  async scheduleCheck(transactionId: string, delayMs: number, reason: CheckReason): Promise<number> {
    const check = await this.transactions.scheduleCheck(transactionId, delayMs);
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

  /**
   * Takes a superseded link of the chain out of Redis before it runs: its check is behind
   * check_seq, so all it would do is find that out. PostgreSQL's schedule is untouched (it names
   * the link that superseded this one). False when the job could not be removed (running, or
   * Redis unreachable): it then finds itself superseded when it runs, as before.
   */
  async withdraw(transactionId: string, check: number): Promise<boolean> {
    try {
      return await this.producer.remove(jobSpec('purchase.verify', { transactionId, reason: 'poll', check }));
    } catch (error) {
      this.logger.warn({ transactionId, err: (error as Error).message }, 'Could not withdraw a superseded verification; it will find itself superseded');
      return false;
    }
  }

  async stop(transactionId: string): Promise<void> {
    await this.transactions.stopChecks(transactionId);
  }
}
