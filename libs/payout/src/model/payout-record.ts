import { centsFromDbValue, type Cents } from '#money';
import type { PayoutMethod } from './payout-method-catalogue.js';
import type { PayoutMetadata } from './payout-request.js';

export const PAYOUT_STATUSES = ['pending', 'paid', 'failed', 'reversed', 'needs_review', 'cancelled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/**
 * `status_reason` values (the contract leaves them to us):
 * - pending: `queued` (a batch item waiting for the worker), `submitting` (provider call under
 *   way), `awaiting_provider` (the provider
 *   has not confirmed yet: RTC settlement, or a submission whose answer never came);
 * - failed: `provider_rejected`, or `not_received_by_provider` (two lookups after the settle
 *   period found nothing: the provider never received it, the hold is released);
 * - cancelled: `cancelled_by_operations`;
 * - reversed: `reversed_by_provider`;
 * - needs_review: `outcome_unknown` (the provider never gave a final answer within the window).
 */
export const PAYOUT_STATUS_REASONS = [
  'queued',
  'submitting',
  'awaiting_provider',
  'provider_rejected',
  'cancelled_by_operations',
  'reversed_by_provider',
  'outcome_unknown',
  'not_received_by_provider',
] as const;

export type PayoutStatusReason = (typeof PAYOUT_STATUS_REASONS)[number];

export interface PayoutRecord {
  id: string;
  vendorId: string;
  reference: string;
  batchId: string | null;
  batchPosition: number | null;
  method: PayoutMethod;
  amountCents: Cents;
  feeCents: Cents;
  currency: 'ZAR';
  status: PayoutStatus;
  statusReason: string | null;
  merchantReference: string;
  providerReference: string | null;
  recipientEncrypted: string;
  /** null when the request sent `"metadata": null` (stored as JSON null, echoed as null). */
  metadata: PayoutMetadata | null;
  requestFingerprint: string;
  deliveryEncrypted: string | null;
  submissionStartedAt: Date | null;
  submissionAnsweredAt: Date | null;
  pollCount: number;
  nextPollAt: Date | null;
  /** Consecutive lookups, each after the settle period, that found no payment under the merchant reference. */
  notFoundStreak: number;
  /** First time the provider answered with a payment for the merchant reference; never released by a later "not found". */
  providerSeenAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  paidAt: Date | null;
  reversedAt: Date | null;
}

export const PAYOUT_COLUMNS = `id, vendor_id, reference, batch_id, batch_position, method, amount_cents, fee_cents, currency, status,
  status_reason, merchant_reference, provider_reference, recipient_encrypted, metadata, request_fingerprint, delivery_encrypted,
  submission_started_at, submission_answered_at, poll_count, next_poll_at, not_found_streak, provider_seen_at, created_at, updated_at, paid_at, reversed_at`;

export interface PayoutRow {
  id: string;
  vendor_id: string;
  reference: string;
  batch_id: string | null;
  batch_position: number | null;
  method: string;
  amount_cents: string;
  fee_cents: string;
  currency: string;
  status: string;
  status_reason: string | null;
  merchant_reference: string;
  provider_reference: string | null;
  recipient_encrypted: string;
  metadata: PayoutMetadata | null;
  request_fingerprint: string;
  delivery_encrypted: string | null;
  submission_started_at: Date | null;
  submission_answered_at: Date | null;
  poll_count: number;
  next_poll_at: Date | null;
  not_found_streak: number;
  provider_seen_at: Date | null;
  created_at: Date;
  updated_at: Date;
  paid_at: Date | null;
  reversed_at: Date | null;
}

export function payoutRecordOf(row: PayoutRow): PayoutRecord {
  return {
    id: row.id,
    vendorId: row.vendor_id,
    reference: row.reference,
    batchId: row.batch_id,
    batchPosition: row.batch_position,
    method: row.method as PayoutMethod,
    amountCents: centsFromDbValue(row.amount_cents),
    feeCents: centsFromDbValue(row.fee_cents),
    currency: 'ZAR',
    status: row.status as PayoutStatus,
    statusReason: row.status_reason,
    merchantReference: row.merchant_reference,
    providerReference: row.provider_reference,
    recipientEncrypted: row.recipient_encrypted,
    metadata: row.metadata,
    requestFingerprint: row.request_fingerprint.trim(),
    deliveryEncrypted: row.delivery_encrypted,
    submissionStartedAt: row.submission_started_at,
    submissionAnsweredAt: row.submission_answered_at,
    pollCount: row.poll_count,
    nextPollAt: row.next_poll_at,
    notFoundStreak: row.not_found_streak,
    providerSeenAt: row.provider_seen_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    paidAt: row.paid_at,
    reversedAt: row.reversed_at,
  };
}

/** The hold the ledger reserved for this payout. */
export function holdOf(payout: Pick<PayoutRecord, 'id' | 'amountCents' | 'feeCents'>): { payoutId: string; cents: Cents } {
  return { payoutId: payout.id, cents: payout.amountCents + payout.feeCents };
}

/** Context bound into the ciphertexts, so a value copied to another payout does not decrypt. */
export const recipientContext = (payoutId: string) => `payout-recipient:${payoutId}`;
export const deliveryContext = (payoutId: string) => `payout-delivery:${payoutId}`;
