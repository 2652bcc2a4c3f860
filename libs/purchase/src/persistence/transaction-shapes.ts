import { readShape, type ReadColumns } from '#database';
import { centsColumn, minorUnitsColumn } from '#money';
import type { TransactionRecord } from '../model/transaction-record.js';
import type { TransactionView } from '../model/transaction-view.js';

/**
 * The read shapes of `purchase_transactions` (alias `t`) the transaction repositories share: the
 * record the domain decides on and the view the vendor reads.
 */
const TRANSACTION_FIELDS: ReadColumns<TransactionRecord> = {
  id: 't.id', vendorId: 't.vendor_id', reference: 't.reference', status: 't.status', productId: 't.product_id',
  chargeCents: centsColumn('t.charge_cents'), wholesaleCents: centsColumn('t.wholesale_cents'), currency: 't.currency',
  destinationAmount: 't.destination_amount', destinationUnit: 't.destination_unit', identifiers: 't.identifiers',
  admissionDay: "to_char(t.admission_day, 'YYYY-MM-DD')", createdAt: 't.created_at', errorCode: 't.error_code',
  submissionAttemptedAt: 't.submission_attempted_at', submissionEndedAt: 't.submission_ended_at', submissionOutcome: 't.submission_outcome',
  providerTransactionId: 't.provider_transaction_id', providerStatus: 't.provider_status', lastCheckedAt: 't.last_checked_at',
  allowanceReturnedAt: 't.allowance_returned_at', notFoundStreak: 't.not_found_streak', checkSeq: 't.check_seq', nextCheckAt: 't.next_check_at',
  reversalWatchUntil: 't.reversal_watch_until',
};
export const TRANSACTION = readShape<TransactionRecord>(TRANSACTION_FIELDS);

/**
 * The record's field read from each plain `t.<column>`: what a recording's column changes are as
 * fields of the record (the record as the recording leaves it, before it is written).
 */
export const TRANSACTION_FIELD_OF_COLUMN: ReadonlyMap<string, keyof TransactionRecord> = new Map(
  Object.entries(TRANSACTION_FIELDS).flatMap(([field, column]) =>
    typeof column === 'string' && /^t\.[a-z_]+$/.test(column) ? [[column.slice(2), field as keyof TransactionRecord] as const] : [],
  ),
);

const iso = (value: Date | string) => new Date(value).toISOString();
const isoOrNull = (value: Date | string | null) => (value === null ? null : iso(value));

/** What every vendor-facing read selects (alias `t`): money in minor units, instants as ISO strings. */
const VIEW_FIELDS: ReadColumns<TransactionView> = {
  id: 't.id', reference: 't.reference', status: 't.status', product_id: 't.product_id', quote_id: 't.quote_id',
  charge_minor: minorUnitsColumn('t.charge_cents'), currency: 't.currency',
  destination_amount: 't.destination_amount', destination_unit: 't.destination_unit', error_code: 't.error_code',
  // Delivery data is only handed out while the purchase stands: never after a reversal.
  fulfilment_available: ["(t.status = 'completed' AND EXISTS (SELECT 1 FROM purchase_fulfilments f WHERE f.transaction_id = t.id))", (raw) => raw === true],
  created_at: ['t.created_at', iso], updated_at: ['t.updated_at', iso], completed_at: ['t.completed_at', isoOrNull], reversed_at: ['t.reversed_at', isoOrNull],
};
export const TRANSACTION_VIEW = readShape<TransactionView>(VIEW_FIELDS);

/** An instant as `toISOString` writes it (UTC, milliseconds, `Z`), computed by PostgreSQL; both truncate the microseconds. */
const isoText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The same view as ONE jsonb value computed by PostgreSQL from the row (alias `t`): the data of
 * a webhook event written by the statement that moves the status (TransactionRepository's
 * unlocked write), where no reader in this process sees the row first. Derived from VIEW_FIELDS
 * field by field, so the two cannot list different fields: instants become toISOString's text,
 * every other column is its value as JSON (cents as a JSON integer, like minorUnitsColumn's;
 * the fulfilment flag as a boolean). test/purchase/unlocked-recording checks an event's data
 * against GET /transactions/{id}.
 */
export const TRANSACTION_VIEW_JSON = `jsonb_build_object(${Object.entries(VIEW_FIELDS)
  .map(([field, column]) => {
    const [expression, reader] = typeof column === 'string' ? [column, undefined] : column;
    return `'${field}', ${reader === iso || reader === isoOrNull ? isoText(expression) : expression}`;
  })
  .join(', ')})`;

/**
 * The same view returned next to the record by a recording's UPDATE (TransactionRepository.write),
 * each field aliased `view.<field>`: the webhook event of a status move needs it, and reading it
 * back in the UPDATE's RETURNING saves the SELECT that followed every move.
 */
const VIEW_PREFIX = 'view.';
const VIEW_ALONGSIDE = readShape<Record<string, unknown>>(Object.fromEntries(Object.entries(VIEW_FIELDS).map(([field, column]) => [`${VIEW_PREFIX}${field}`, column])));

export const TRANSACTION_VIEW_ALONGSIDE = {
  columns: VIEW_ALONGSIDE.columns,
  read: (row: object): TransactionView =>
    Object.fromEntries(Object.entries(VIEW_ALONGSIDE.read(row)).map(([field, value]) => [field.slice(VIEW_PREFIX.length), value])) as unknown as TransactionView,
};
