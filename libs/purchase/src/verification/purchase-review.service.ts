import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NotFoundError } from '#common';
import { enqueueInTransaction, jobSpec } from '#queues';
import { isUuid } from '../model/uuid-pattern.js';
import type { PurchaseStaffEvent, PurchaseStaffItem } from '../model/transaction-record.js';
import type { TransactionStatus } from '../model/transaction-status.js';
import { TransactionStaffRepository } from '../persistence/transaction-staff.repository.js';
import { TransactionRepository } from '../persistence/transaction.repository.js';

export interface VerificationRequested {
  transaction_id: string;
  status: TransactionStatus;
  scheduled: boolean;
}

/**
 * Staff tools for transactions automatic verification gave up on (`review`), or that staff
 * suspect the provider created after we failed them: a manual lookup.
 * The lookup still decides; staff never set a status by hand. Also what the back-office reads
 * of purchases, across vendors: the review queue, a purchase's page and history, the search.
 */
@Injectable()
export class PurchaseReviewService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly transactions: TransactionRepository,
    private readonly staff: TransactionStaffRepository,
  ) {}

  /** Purchases waiting in `review`, oldest first. */
  queue(limit: number): Promise<PurchaseStaffItem[]> {
    return this.staff.reviewQueue(limit);
  }

  /** How many purchases wait in `review` and how long the oldest has (seconds; 0 when none). */
  depth(): Promise<{ count: number; oldestAgeSeconds: number }> {
    return this.staff.reviewDepth();
  }

  /** One purchase as staff see it (in the caller's transaction when given). */
  item(transactionId: string, manager?: EntityManager): Promise<PurchaseStaffItem | undefined> {
    return this.staff.staffItem(transactionId, manager);
  }

  /** Every recorded status move of the purchase with the provider's status behind it, oldest first. */
  history(transactionId: string): Promise<PurchaseStaffEvent[]> {
    return this.staff.staffHistory(transactionId);
  }

  /** The purchase with this id (a UUID or null) and those whose reference starts with the LIKE pattern, newest first. */
  search(id: string | null, referencePattern: string, limit: number): Promise<PurchaseStaffItem[]> {
    return this.staff.staffSearch(id, referencePattern, limit);
  }

  async requestVerification(transactionId: string): Promise<VerificationRequested> {
    if (!isUuid(transactionId)) throw new NotFoundError('transaction');
    return this.dataSource.transaction(async (manager) => {
      const status = await this.transactions.status(manager, transactionId);
      if (!status) throw new NotFoundError('transaction');
      // A failed purchase is looked up too: the provider may have created it late, which the
      // lookup reports as a late_creation exception without changing the status.
      const scheduled = status !== 'reversed';
      if (scheduled) {
        await enqueueInTransaction(manager, jobSpec('purchase.verify', { transactionId, reason: 'manual', requestedAt: Date.now() }));
      }
      return { transaction_id: transactionId, status, scheduled };
    });
  }
}
