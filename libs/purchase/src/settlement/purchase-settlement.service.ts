import { Injectable } from '@nestjs/common';
import type { ClosedWithoutLine } from '#providers';
import type { TransactionRecord } from '../model/transaction-record.js';
import type { TransactionStatus } from '../model/transaction-status.js';
import { TransactionWorkRepository } from '../persistence/transaction-work.repository.js';
import { TransactionRepository } from '../persistence/transaction.repository.js';

/** What settlement (libs/settlement) reads of purchases to match a provider's report against them. */
@Injectable()
export class PurchaseSettlementService {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly work: TransactionWorkRepository,
  ) {}

  /** The purchase a report line names by our id. */
  record(transactionId: string): Promise<TransactionRecord | undefined> {
    return this.transactions.record(transactionId);
  }

  /** The purchase a report line names by the provider's id. */
  recordByProviderTransactionId(providerTransactionId: string): Promise<TransactionRecord | undefined> {
    return this.transactions.recordByProviderTransactionId(providerTransactionId);
  }

  /** Purchases settled or reversed in [from, to) that no line of the report names. */
  closedWithoutSettlementLine(
    reportId: string,
    from: Date,
    to: Date,
  ): Promise<ClosedWithoutLine<TransactionStatus>[]> {
    return this.work.closedWithoutSettlementLine(reportId, from, to);
  }
}
