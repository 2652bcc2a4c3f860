import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError } from '#common';
import { enqueueInTransaction, jobSpec } from '#queues';
import { isUuid } from '../model/uuid-pattern.js';
import { TransactionsRepository } from '../persistence/transactions.repository.js';
import type { TransactionStatus } from '../model/transaction-status.js';

export interface VerificationRequested {
  transaction_id: string;
  status: TransactionStatus;
  scheduled: boolean;
}

/**
 * Staff tools for transactions automatic verification gave up on (`review`), or that staff
 * suspect the provider created after we failed them: a manual lookup.
 * The lookup still decides; staff never set a status by hand.
 */
@Injectable()
export class PurchaseReviewService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly transactions: TransactionsRepository,
  ) {}

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
