import type { TransactionStatus } from './transaction-status.js';

/** The transaction resource as the purchase API returns it (the OpenAPI description lists every field). */
export interface TransactionView {
  id: string;
  reference: string;
  status: TransactionStatus;
  product_id: number;
  quote_id: string;
  charge_minor: number;
  currency: string;
  destination_amount: string;
  destination_unit: string;
  error_code: string | null;
  fulfilment_available: boolean;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  reversed_at: string | null;
}

/** GET /reports/summary. */
export interface SalesSummaryView {
  date_from: string | null;
  date_to: string | null;
  currency: 'ZAR';
  /** Every verified sale whose completion falls in the period, including those reversed since (gross). */
  completed_count: number;
  completed_gross_minor: number;
  /** Of those sales, the ones reversed since, counted on their original completion date. */
  reversed_count: number;
  reversed_gross_minor: number;
  /** completed_gross_minor minus reversed_gross_minor. */
  net_minor: number;
  /** Still pending or in review, by admission date. */
  pending_count: number;
  review_count: number;
}
