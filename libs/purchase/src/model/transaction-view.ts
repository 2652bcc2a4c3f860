import { centsFromDbValue, minorUnitsFromCents } from '#money';
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

/** Columns every vendor-facing read selects (alias `t`), with fulfilment availability. */
export const TRANSACTION_VIEW_COLUMNS = `
  t.id, t.reference, t.status, t.product_id, t.quote_id, t.charge_cents, t.currency, t.destination_amount,
  t.destination_unit, t.error_code, t.created_at, t.updated_at, t.completed_at, t.reversed_at,
  (t.status = 'completed' AND EXISTS (SELECT 1 FROM purchase_fulfilments f WHERE f.transaction_id = t.id)) AS fulfilment_available`;

export interface TransactionViewRow {
  id: string;
  reference: string;
  status: TransactionStatus;
  product_id: number;
  quote_id: string;
  charge_cents: string;
  currency: string;
  destination_amount: string;
  destination_unit: string;
  error_code: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  reversed_at: Date | null;
  fulfilment_available: boolean;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

export function transactionViewOf(row: TransactionViewRow): TransactionView {
  return {
    id: row.id,
    reference: row.reference,
    status: row.status,
    product_id: row.product_id,
    quote_id: row.quote_id,
    charge_minor: minorUnitsFromCents(centsFromDbValue(row.charge_cents)),
    currency: row.currency,
    destination_amount: row.destination_amount,
    destination_unit: row.destination_unit,
    error_code: row.error_code,
    // Delivery data is only handed out while the purchase stands: never after a reversal.
    fulfilment_available: row.fulfilment_available === true,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    completed_at: iso(row.completed_at),
    reversed_at: iso(row.reversed_at),
  };
}
