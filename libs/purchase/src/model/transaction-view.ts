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

