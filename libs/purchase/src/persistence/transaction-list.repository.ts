import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { johannesburgDayRange } from '#common';
import { readShape, type Queryable } from '#database';
import { minorUnitsColumn } from '#money';
import type { TransactionEventView } from '../model/transaction-record.js';
import type { SalesSummaryView, TransactionFilter, TransactionView } from '../model/transaction-view.js';
import { TRANSACTION_VIEW } from './transaction-shapes.js';

/**
 * GET /reports/summary's figures from the `scoped` rows of salesSummary, money in minor units.
 * Net: the sales in the period not reversed since (completed minus reversed gross).
 */
const SALES_FIGURES = readShape<Omit<SalesSummaryView, 'date_from' | 'date_to' | 'currency'>>({
  completed_count: 'count(*) FILTER (WHERE sold_in_period)::int',
  completed_gross_minor: minorUnitsColumn('COALESCE(sum(charge_cents) FILTER (WHERE sold_in_period), 0)::text'),
  reversed_count: "count(*) FILTER (WHERE sold_in_period AND status = 'reversed')::int",
  reversed_gross_minor: minorUnitsColumn("COALESCE(sum(charge_cents) FILTER (WHERE sold_in_period AND status = 'reversed'), 0)::text"),
  net_minor: minorUnitsColumn("COALESCE(sum(charge_cents) FILTER (WHERE sold_in_period AND status <> 'reversed'), 0)::text"),
  pending_count: "count(*) FILTER (WHERE admitted_in_period AND status = 'pending')::int",
  review_count: "count(*) FILTER (WHERE admitted_in_period AND status = 'review')::int",
});

/** Read models for the vendor: a transaction, the list, its history, the sales summary and the velocity count. Always by vendor id. */
@Injectable()
export class TransactionListRepository {
  constructor(private readonly dataSource: DataSource) {}

  async view(vendorId: string, transactionId: string, manager: Queryable = this.dataSource): Promise<TransactionView | undefined> {
    return this.viewWhere(manager, 't.vendor_id = $1 AND t.id = $2', [vendorId, transactionId]);
  }

  async viewByReference(vendorId: string, reference: string): Promise<TransactionView | undefined> {
    return this.viewWhere(this.dataSource, 't.vendor_id = $1 AND t.reference = $2', [vendorId, reference]);
  }

  private async viewWhere(manager: Queryable, where: string, parameters: unknown[]): Promise<TransactionView | undefined> {
    const [row] = await manager.query<object[]>(`SELECT ${TRANSACTION_VIEW.columns} FROM purchase_transactions t WHERE ${where}`, parameters);
    return row ? TRANSACTION_VIEW.read(row) : undefined;
  }

  /** One page, newest first, and the total that matches the filter. */
  async list(vendorId: string, filter: TransactionFilter): Promise<{ items: TransactionView[]; total: number }> {
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
    const [{ total }] = await this.dataSource.query<{ total: number }[]>(`SELECT count(*)::int AS total FROM purchase_transactions t WHERE ${where}`, parameters);
    const rows = await this.dataSource.query<object[]>(
      `SELECT ${TRANSACTION_VIEW.columns} FROM purchase_transactions t WHERE ${where}
        ORDER BY t.created_at DESC, t.id LIMIT $${parameters.length + 1} OFFSET $${parameters.length + 2}`,
      [...parameters, filter.perPage, (filter.page - 1) * filter.perPage],
    );
    return { items: rows.map(TRANSACTION_VIEW.read), total };
  }

  /** The vendor's own transaction's status moves, oldest first; empty for another vendor's id. */
  async history(vendorId: string, transactionId: string): Promise<TransactionEventView[]> {
    return this.dataSource.query<TransactionEventView[]>(
      `SELECT e.from_status, e.to_status, e.reason, e.created_at FROM purchase_transaction_events e
         JOIN purchase_transactions t ON t.id = e.transaction_id WHERE t.vendor_id = $1 AND t.id = $2 ORDER BY e.id`,
      [vendorId, transactionId],
    );
  }

  /** Whole Africa/Johannesburg days as instants; a null end leaves that end of the period open. */
  async salesSummary(vendorId: string, from: Date | null, to: Date | null) {
    const [row] = await this.dataSource.query<object[]>(
      `WITH scoped AS (
         SELECT status, charge_cents, completed_at, created_at,
                (completed_at IS NOT NULL AND ($2::timestamptz IS NULL OR completed_at >= $2) AND ($3::timestamptz IS NULL OR completed_at < $3)) AS sold_in_period,
                (($2::timestamptz IS NULL OR created_at >= $2) AND ($3::timestamptz IS NULL OR created_at < $3)) AS admitted_in_period
           FROM purchase_transactions WHERE vendor_id = $1)
       SELECT ${SALES_FIGURES.columns} FROM scoped`,
      [vendorId, from, to],
    );
    return SALES_FIGURES.read(row);
  }

  /** The vendor's admissions with `created_at > windowStart`, exactly, as the admission's velocity check counts them (purchase_admissions_since). */
  async admissionsSince(manager: Queryable, vendorId: string, windowStart: Date): Promise<number> {
    const [{ count }] = await manager.query<{ count: string }[]>(`SELECT purchase_admissions_since($1, $2) AS count`, [vendorId, windowStart]);
    return Number(count);
  }
}
