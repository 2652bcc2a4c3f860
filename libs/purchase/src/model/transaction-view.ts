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

/** The vendor's list's filter and page. */
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

/** POST /transactions/validate: what POST /transactions would do with the same key and body. */
export interface TransactionValidation {
  /** `create`: a new purchase would be admitted (202, pending); `replay`: the purchase already made with this key would be answered. */
  outcome: 'create' | 'replay';
  reference: string;
  quote_id: string;
  product_id: number;
  charge_minor: number;
  currency: string;
  destination_amount: string;
  destination_unit: string;
  /** `replay`: the transaction the real call would answer, in its current state; `create`: null (the real call assigns the id). */
  transaction: TransactionView | null;
  /** `create`: the day's allowance left once this charge is counted, as it stands now; `replay`: null. */
  remaining_today_minor: number | null;
  /** `create`: purchases still admissible in the velocity window once this one is counted, as it stands now; `replay`: null. */
  velocity_remaining: number | null;
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
