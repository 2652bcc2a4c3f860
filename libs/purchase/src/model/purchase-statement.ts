import type { TransactionRecord } from './transaction-record.js';

export type StatementPeriod = 'day' | 'month';

/** One period, product and operator of the purchase statement, money in ZAR minor units. */
export interface PurchaseStatementLine {
  period: string;
  product_id: number;
  product_name: string;
  operator_id: number;
  operator_name: string;
  completed_count: number;
  completed_gross_minor: number;
  reversed_count: number;
  reversed_gross_minor: number;
  net_minor: number;
}

/** A purchase as the export writes it (`t`, its product `pr` and operator `op`). */
export type PurchaseExportItem = Pick<TransactionRecord, 'id' | 'reference' | 'status' | 'productId' | 'chargeCents' | 'createdAt'> & {
  productName: string;
  operatorName: string;
  completedAt: Date | null;
  reversedAt: Date | null;
};

/** The purchases an export writes: admitted in [from, to) (null: open), and the list's other filters. */
export interface PurchaseExportFilter {
  from: Date | null;
  to: Date | null;
  status?: string;
  reference?: string;
  productId?: number;
}
