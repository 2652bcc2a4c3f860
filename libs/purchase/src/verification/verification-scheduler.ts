import { Injectable } from '@nestjs/common';
import type { PurchaseVerifyPayload } from '#queues';
import { TransactionWorkRepository } from '../persistence/transaction-work.repository.js';

/** The reasons a link of the polling chain is scheduled for. */
export type CheckReason = Extract<PurchaseVerifyPayload, { check: number }>['reason'];

/**
 * Schedules the next verification lookup of a transaction. PostgreSQL holds the schedule
 * (`check_seq`, `next_check_at`) and is also its delivery: PurchaseCheckClaims claims the checks
 * that are due, in batches. Nothing of the chain lives in Redis, so nothing of it can be lost there.
 */
@Injectable()
export class VerificationScheduler {
  constructor(private readonly transactions: TransactionWorkRepository) {}

  /** Starts a new check of the chain, due in `delayMs`; returns its sequence. */
  async scheduleCheck(transactionId: string, delayMs: number): Promise<number> {
    return this.transactions.scheduleCheck(transactionId, delayMs);
  }

  async stop(transactionId: string): Promise<void> {
    await this.transactions.stopChecks(transactionId);
  }
}
