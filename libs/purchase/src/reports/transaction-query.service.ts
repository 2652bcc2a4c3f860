import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { johannesburgDayRange, NotFoundError } from '#common';
import { pageOf, type Page } from '../model/catalogue-views.js';
import { isUuid } from '../model/uuid-pattern.js';
import type { TransactionStatus } from '../model/transaction-status.js';
import { TRANSACTION_VIEW_COLUMNS, transactionViewOf, type TransactionView, type TransactionViewRow } from '../model/transaction-view.js';

export interface TransactionFilter {
  status?: TransactionStatus;
  reference?: string;
  productId?: number;
  /** Whole Africa/Johannesburg days (YYYY-MM-DD), by admission time. */
  dateFrom?: string;
  dateTo?: string;
  page: number;
  perPage: number;
}

export const REFERENCE_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Vendor-scoped transaction reads: every method takes the vendorId, another vendor's id answers 404. */
@Injectable()
export class TransactionQueryService {
  constructor(private readonly dataSource: DataSource) {}

  async get(vendorId: string, transactionId: string, manager: EntityManager = this.dataSource.manager): Promise<TransactionView> {
    if (!isUuid(transactionId)) throw new NotFoundError('transaction');
    const rows: TransactionViewRow[] = await manager.query(
      `SELECT ${TRANSACTION_VIEW_COLUMNS} FROM purchase_transactions t WHERE t.vendor_id = $1 AND t.id = $2`,
      [vendorId, transactionId],
    );
    if (rows.length === 0) throw new NotFoundError('transaction');
    return transactionViewOf(rows[0]);
  }

  async getByReference(vendorId: string, reference: string): Promise<TransactionView> {
    if (!REFERENCE_PATTERN.test(reference)) throw new NotFoundError('transaction');
    const rows: TransactionViewRow[] = await this.dataSource.query(
      `SELECT ${TRANSACTION_VIEW_COLUMNS} FROM purchase_transactions t WHERE t.vendor_id = $1 AND t.reference = $2`,
      [vendorId, reference],
    );
    if (rows.length === 0) throw new NotFoundError('transaction');
    return transactionViewOf(rows[0]);
  }

  async list(vendorId: string, filter: TransactionFilter): Promise<Page<TransactionView>> {
    const conditions = ['t.vendor_id = $1'];
    const parameters: unknown[] = [vendorId];
    const add = (sql: string, value: unknown) => {
      parameters.push(value);
      conditions.push(sql.replace('?', `$${parameters.length}`));
    };
    if (filter.status) add('t.status = ?', filter.status);
    if (filter.reference) add('t.reference = ?', filter.reference);
    if (filter.productId !== undefined) add('t.product_id = ?', filter.productId);
    if (filter.dateFrom) add('t.created_at >= ?', johannesburgDayRange(filter.dateFrom).start);
    if (filter.dateTo) add('t.created_at < ?', johannesburgDayRange(filter.dateTo).endExclusive);
    const where = conditions.join(' AND ');
    const [{ total }] = await this.dataSource.query(`SELECT count(*)::int AS total FROM purchase_transactions t WHERE ${where}`, parameters);
    const rows: TransactionViewRow[] = await this.dataSource.query(
      `SELECT ${TRANSACTION_VIEW_COLUMNS} FROM purchase_transactions t WHERE ${where}
        ORDER BY t.created_at DESC, t.id LIMIT $${parameters.length + 1} OFFSET $${parameters.length + 2}`,
      [...parameters, filter.perPage, (filter.page - 1) * filter.perPage],
    );
    return pageOf(rows.map(transactionViewOf), filter.page, filter.perPage, total);
  }
}
