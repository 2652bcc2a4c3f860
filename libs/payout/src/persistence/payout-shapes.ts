import { raw, type Sql } from 'sql-template-tag';
import { readShape } from '#database';
import { centsColumn } from '#money';
import type { NewPayout, PayoutRecord } from '../model/payout-record.js';
import type { PayoutStaffItem } from '../model/payout-evidence.js';
import { canMove, sourcesOf, type PayoutStatus } from '../model/payout-status.js';

/** The `payouts` table as read (defined by the migrations); unqualified, so it serves RETURNING too. */
export const PAYOUT = readShape<PayoutRecord>({
  id: 'id', vendorId: 'vendor_id', reference: 'reference', batchId: 'batch_id', batchPosition: 'batch_position', method: 'method',
  amountCents: centsColumn('amount_cents'), feeCents: centsColumn('fee_cents'), currency: ['currency', () => 'ZAR'], status: 'status',
  statusReason: 'status_reason', merchantReference: 'merchant_reference', providerReference: 'provider_reference',
  recipientEncrypted: 'recipient_encrypted', metadata: 'metadata', requestFingerprint: ['request_fingerprint', (raw: string) => raw.trim()],
  deliveryEncrypted: 'delivery_encrypted', submissionStartedAt: 'submission_started_at', submissionAnsweredAt: 'submission_answered_at',
  pollCount: 'poll_count', nextPollAt: 'next_poll_at', notFoundStreak: 'not_found_streak', providerSeenAt: 'provider_seen_at',
  createdAt: 'created_at', updatedAt: 'updated_at', paidAt: 'paid_at', reversedAt: 'reversed_at',
});

/** PAYOUT's column list as a fragment. */
export const PAYOUT_READ = raw(PAYOUT.columns);

/** A payout as staff see it: `p` is the payout, `v` its vendor. */
export const STAFF_ITEM = readShape<PayoutStaffItem>({
  id: 'p.id', vendorId: 'p.vendor_id', vendorName: 'v.name', reference: 'p.reference', method: 'p.method',
  amountCents: centsColumn('p.amount_cents::text'), feeCents: centsColumn('p.fee_cents::text'), status: 'p.status', statusReason: 'p.status_reason',
  merchantReference: 'p.merchant_reference', providerReference: 'p.provider_reference', createdAt: 'p.created_at',
  waitingSince: 'COALESCE(p.review_at, p.created_at)', submissionStartedAt: 'p.submission_started_at',
  submissionAnsweredAt: 'p.submission_answered_at', nextPollAt: 'p.next_poll_at',
});

/**
 * What admission writes of a new payout (with status `pending`): each column, the SQL type of its
 * bind value and that value, in one order for the single payout's statement and the batch's unnest.
 */
export const NEW_PAYOUT_FIELDS: ReadonlyArray<readonly [column: string, type: string, value: (payout: NewPayout) => unknown]> = [
  ['id', 'uuid', (payout) => payout.id],
  ['vendor_id', 'uuid', (payout) => payout.vendorId],
  ['reference', 'text', (payout) => payout.reference],
  ['batch_id', 'uuid', (payout) => payout.batchId],
  ['batch_position', 'int', (payout) => payout.batchPosition],
  ['method', 'text', (payout) => payout.method],
  ['amount_cents', 'bigint', (payout) => payout.amountCents.toString()],
  ['fee_cents', 'bigint', (payout) => payout.feeCents.toString()],
  ['status_reason', 'text', (payout) => payout.statusReason],
  ['merchant_reference', 'text', (payout) => payout.merchantReference],
  ['recipient_encrypted', 'text', (payout) => payout.recipientEncrypted],
  ['metadata', 'jsonb', (payout) => JSON.stringify(payout.metadata)],
  ['request_fingerprint', 'text', (payout) => payout.requestFingerprint],
  ['submission_started_at', 'timestamptz', (payout) => payout.submissionStartedAt],
  ['next_poll_at', 'timestamptz', (payout) => payout.nextPollAt],
];
export const NEW_PAYOUT_COLUMN_LIST = raw(NEW_PAYOUT_FIELDS.map(([column]) => column).join(', '));

/**
 * A status as an SQL literal, for the reads whose predicate must match a partial index
 * (payouts_review_queue_idx, payouts_unsubmitted_idx, payouts_open_hold_idx): a bound value would
 * hide it from the planner. Typed, so only a status of PAYOUT_STATUSES can be written so.
 */
export const statusLiteral = (status: PayoutStatus): Sql => raw(`'${status}'`);

/** Statuses as an SQL literal list for `IN (...)`, for the same reason as statusLiteral. */
export const statusLiterals = (statuses: readonly PayoutStatus[]): string => statuses.map((status) => statusLiteral(status).sql).join(', ');

/**
 * The statuses a guarded move to `to` may start from: every source of the transition table, or
 * the narrower `from` of a method that applies to some of them only (e.g. staff resolve only
 * needs_review). A `from` the table does not allow is a programming error and throws.
 */
export function guardedSources(to: PayoutStatus, from?: readonly PayoutStatus[]): PayoutStatus[] {
  if (from === undefined) return sourcesOf(to);
  const refused = from.filter((source) => !canMove(source, to));
  if (refused.length > 0) throw new Error(`payout status move ${refused.join(', ')} → ${to} is not in the transition table`);
  return [...from];
}
