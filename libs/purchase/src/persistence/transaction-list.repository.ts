import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { johannesburgDayRange } from '#common';
import { readShape, type Queryable } from '#database';
import { centsColumn, minorUnitsColumn } from '#money';
import type { PurchaseExportFilter, PurchaseExportItem, PurchaseStatementLine, StatementPeriod } from '../model/purchase-statement.js';
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

/**
 * The same figures as GET /reports/summary (TransactionListRepository.salesSummary), split: every sale
 * verified as completed, by the Africa/Johannesburg day (or month) of that completion, including
 * those reversed since; reversed ones also counted under `reversed_*` by that same original date.
 */
const STATEMENT_LINE = readShape<PurchaseStatementLine>({
  period: 's.period',
  product_id: 's.product_id',
  product_name: 'pr.name',
  operator_id: 'pr.operator_id',
  operator_name: 'op.name',
  completed_count: 's.completed_count::int',
  completed_gross_minor: minorUnitsColumn('s.completed_gross::text'),
  reversed_count: 's.reversed_count::int',
  reversed_gross_minor: minorUnitsColumn('s.reversed_gross::text'),
  net_minor: minorUnitsColumn('(s.completed_gross - s.reversed_gross)::text'),
});

const EXPORT_ITEM = readShape<PurchaseExportItem>({
  id: 't.id', reference: 't.reference', status: 't.status', productId: 't.product_id', productName: 'pr.name', operatorName: 'op.name',
  chargeCents: centsColumn('t.charge_cents'), createdAt: 't.created_at', completedAt: 't.completed_at', reversedAt: 't.reversed_at',
});

const PERIOD_FORMAT: Record<StatementPeriod, string> = { day: 'YYYY-MM-DD', month: 'YYYY-MM' };

/**
 * Read models for the vendor: a transaction, the list, its history, the sales summary, the
 * statement, the export and the dashboard's search, and the velocity count. Always by vendor id.
 */
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

  /** One page of the statement, oldest period first, then product; and how many rows it has in all. */
  async statementPage(vendorId: string, period: StatementPeriod, from: Date | null, to: Date | null, limit: number, offset: number): Promise<{ total: number; items: PurchaseStatementLine[] }> {
    const grouped = `
      SELECT to_char(t.completed_at AT TIME ZONE 'Africa/Johannesburg', '${PERIOD_FORMAT[period]}') AS period, t.product_id,
             count(*) AS completed_count, sum(t.charge_cents) AS completed_gross,
             count(*) FILTER (WHERE t.status = 'reversed') AS reversed_count,
             COALESCE(sum(t.charge_cents) FILTER (WHERE t.status = 'reversed'), 0) AS reversed_gross
        FROM purchase_transactions t
       WHERE t.vendor_id = $1 AND t.completed_at IS NOT NULL
         AND ($2::timestamptz IS NULL OR t.completed_at >= $2) AND ($3::timestamptz IS NULL OR t.completed_at < $3)
       GROUP BY 1, 2`;
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total FROM (${grouped}) g`, [vendorId, from, to])) as Array<{ total: number }>;
    const rows: object[] = await this.dataSource.query(
      `SELECT ${STATEMENT_LINE.columns} FROM (${grouped}) s
         JOIN purchase_products pr ON pr.id = s.product_id JOIN purchase_operators op ON op.id = pr.operator_id
        ORDER BY s.period, s.product_id LIMIT $4 OFFSET $5`,
      [vendorId, from, to, limit, offset],
    );
    return { total, items: rows.map(STATEMENT_LINE.read) };
  }

  /**
   * Up to `limit` of the vendor's purchases admitted in [from, to) that match the list's other
   * filters, oldest first after purchase `afterId` (keyset on (created_at, id); the exact time is
   * read back from the row).
   */
  async exportItems(vendorId: string, filter: PurchaseExportFilter, afterId: string | null, limit: number): Promise<PurchaseExportItem[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${EXPORT_ITEM.columns} FROM purchase_transactions t
         JOIN purchase_products pr ON pr.id = t.product_id JOIN purchase_operators op ON op.id = pr.operator_id
        WHERE t.vendor_id = $1 AND ($2::timestamptz IS NULL OR t.created_at >= $2) AND ($3::timestamptz IS NULL OR t.created_at < $3)
          AND ($4::uuid IS NULL OR (t.created_at, t.id) > (SELECT c.created_at, c.id FROM purchase_transactions c WHERE c.id = $4 AND c.vendor_id = $1))
          AND ($6::text IS NULL OR t.status = $6) AND ($7::text IS NULL OR t.reference = $7) AND ($8::int IS NULL OR t.product_id = $8)
        ORDER BY t.created_at, t.id LIMIT $5`,
      [vendorId, filter.from, filter.to, afterId, limit, filter.status ?? null, filter.reference ?? null, filter.productId ?? null],
    );
    return rows.map(EXPORT_ITEM.read);
  }

  /** The vendor's purchases whose reference starts with `text` or whose id is `text`, newest first (the dashboard's search). */
  async search(vendorId: string, text: string, limit: number): Promise<PurchaseExportItem[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${EXPORT_ITEM.columns} FROM purchase_transactions t
         JOIN purchase_products pr ON pr.id = t.product_id JOIN purchase_operators op ON op.id = pr.operator_id
        WHERE t.vendor_id = $1 AND (left(t.reference, length($2)) = $2 OR t.id::text = lower($2))
        ORDER BY t.created_at DESC, t.id DESC LIMIT $3`,
      [vendorId, text, limit],
    );
    return rows.map(EXPORT_ITEM.read);
  }
}
