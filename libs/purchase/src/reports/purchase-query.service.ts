import { Injectable } from '@nestjs/common';
import { NotFoundError } from '#common';
import { pageOf, type Page } from '../model/catalogue-views.js';
import type { TransactionEventView } from '../model/transaction-record.js';
import { REFERENCE_PATTERN } from '../model/transaction-reference.js';
import type { TransactionFilter, TransactionView } from '../model/transaction-view.js';
import { isUuid } from '../model/uuid-pattern.js';
import { TransactionListRepository } from '../persistence/transaction-list.repository.js';

/** Vendor-scoped transaction reads: every method takes the vendorId, another vendor's id answers 404. */
@Injectable()
export class PurchaseQueryService {
  constructor(private readonly transactions: TransactionListRepository) {}

  async get(vendorId: string, transactionId: string): Promise<TransactionView> {
    const view = isUuid(transactionId) ? await this.transactions.view(vendorId, transactionId) : undefined;
    if (!view) throw new NotFoundError('transaction');
    return view;
  }

  async getByReference(vendorId: string, reference: string): Promise<TransactionView> {
    const view = REFERENCE_PATTERN.test(reference) ? await this.transactions.viewByReference(vendorId, reference) : undefined;
    if (!view) throw new NotFoundError('transaction');
    return view;
  }

  async list(vendorId: string, filter: TransactionFilter): Promise<Page<TransactionView>> {
    const { items, total } = await this.transactions.list(vendorId, filter);
    return pageOf(items, filter.page, filter.perPage, total);
  }

  /** The status moves of the vendor's own transaction, oldest first; empty for an id that is not the vendor's. */
  async history(vendorId: string, transactionId: string): Promise<TransactionEventView[]> {
    return isUuid(transactionId) ? this.transactions.history(vendorId, transactionId) : [];
  }
}
