import { Injectable } from '@nestjs/common';
import { decimalCell, johannesburgDayRange, type CsvCell } from '#common';
import { formatCents } from '#money';
import type { PurchaseExportItem, PurchaseStatementLine, StatementPeriod } from '../model/purchase-statement.js';
import { TransactionListRepository } from '../persistence/transaction-list.repository.js';

export interface PurchaseStatementPage {
  items: PurchaseStatementLine[];
  page: number;
  total: number;
  last_page: number;
}

/** The purchases CSV's columns, in order (docs/PURCHASE.md, "Statement and export"). */
export const PURCHASE_CSV_HEADER = [
  'transaction_id', 'reference', 'status', 'product_id', 'product_name', 'operator_name', 'currency', 'charge', 'created_at', 'completed_at', 'reversed_at',
] as const;

const EXPORT_ITEMS = 2_000;

/** Whole Africa/Johannesburg days (YYYY-MM-DD, by admission) and the purchase list's filters. */
export interface PurchaseExportQuery {
  dateFrom?: string;
  dateTo?: string;
  status?: string;
  reference?: string;
  productId?: number;
}

const days = (dateFrom?: string, dateTo?: string) => ({
  from: dateFrom ? johannesburgDayRange(dateFrom).start : null,
  to: dateTo ? johannesburgDayRange(dateTo).endExclusive : null,
});

/** `GET /reports/statement`: what the vendor was charged and what was reversed, per day or month, product and operator. */
@Injectable()
export class PurchaseStatementService {
  constructor(private readonly statements: TransactionListRepository) {}

  async page(vendorId: string, query: { period: StatementPeriod; dateFrom?: string; dateTo?: string; page: number; perPage: number }): Promise<PurchaseStatementPage> {
    const { from, to } = days(query.dateFrom, query.dateTo);
    const { total, items } = await this.statements.statementPage(vendorId, query.period, from, to, query.perPage, (query.page - 1) * query.perPage);
    return { items, page: query.page, total, last_page: Math.max(1, Math.ceil(total / query.perPage)) };
  }

  /**
   * The purchases admitted in the days (and, from the dashboard's list, of its status, reference
   * and product), oldest first, as CSV rows, one bounded keyset batch per query.
   */
  async *csvRows(vendorId: string, query: PurchaseExportQuery): AsyncGenerator<Array<readonly CsvCell[]>> {
    const filter = { ...days(query.dateFrom, query.dateTo), status: query.status, reference: query.reference, productId: query.productId };
    let afterId: string | null = null;
    for (;;) {
      const rows = await this.statements.exportItems(vendorId, filter, afterId, EXPORT_ITEMS);
      if (rows.length === 0) return;
      afterId = rows[rows.length - 1].id;
      yield rows.map((row) => [
        row.id, row.reference, row.status, String(row.productId), row.productName, row.operatorName, 'ZAR', decimalCell(formatCents(row.chargeCents)),
        row.createdAt.toISOString(), row.completedAt?.toISOString() ?? null, row.reversedAt?.toISOString() ?? null,
      ]);
    }
  }

  /** Purchases by reference prefix or exact id, newest first, at most `limit`. */
  search(vendorId: string, text: string, limit: number): Promise<PurchaseExportItem[]> {
    return this.statements.search(vendorId, text, limit);
  }
}
