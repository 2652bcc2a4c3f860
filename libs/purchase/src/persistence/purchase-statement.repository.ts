import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape } from '#database';
import { centsColumn, minorUnitsColumn } from '#money';
import type { PurchaseExportFilter, PurchaseExportItem, PurchaseStatementLine, StatementPeriod } from '../model/purchase-statement.js';

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

@Injectable()
export class PurchaseStatementRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One page of the statement, oldest period first, then product; and how many rows it has in all. */
  async page(vendorId: string, period: StatementPeriod, from: Date | null, to: Date | null, limit: number, offset: number): Promise<{ total: number; items: PurchaseStatementLine[] }> {
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
  async exportRows(vendorId: string, filter: PurchaseExportFilter, afterId: string | null, limit: number): Promise<PurchaseExportItem[]> {
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
