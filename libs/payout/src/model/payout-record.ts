import type { Cents } from '#money';
import type { PayoutMethod } from './payout-method-catalogue.js';
import type { PayoutMetadata } from './payout-request.js';
import type { PayoutStatus } from './payout-status.js';


/**
 * `status_reason` values (the contract leaves them to us):
 * - pending: `queued` (a batch item waiting for the worker), `submitting` (provider call under
 *   way), `awaiting_provider` (the provider
 *   has not confirmed yet: RTC settlement, or a submission whose answer never came);
 * - failed: `provider_rejected`, or `not_received_by_provider` (two lookups after the settle
 *   period found nothing: the provider never received it, the hold is released);
 * - cancelled: `cancelled_by_operations`;
 * - reversed: `reversed_by_provider`;
 * - needs_review: `outcome_unknown` (the provider never gave a final answer within the window);
 * - failed or paid from needs_review by two staff (back-office four eyes): `resolved_by_staff`;
 * - paid after we had released it as failed, proved by the provider (a settlement line or a
 *   verified answer; its amount + fee debited again by a `resettle` entry): `paid_after_release`.
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
  'resolved_by_staff',
  'paid_after_release',
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

/** The hold the ledger reserved for this payout. */
export function holdOf(payout: Pick<PayoutRecord, 'id' | 'amountCents' | 'feeCents'>): { payoutId: string; cents: Cents } {
  return { payoutId: payout.id, cents: payout.amountCents + payout.feeCents };
}

/** Context bound into the ciphertexts, so a value copied to another payout does not decrypt. */
export const recipientContext = (payoutId: string) => `payout-recipient:${payoutId}`;
export const deliveryContext = (payoutId: string) => `payout-delivery:${payoutId}`;

/** Payout ids are UUIDs; anything else named by a job cannot exist and never reaches SQL. */
export const PAYOUT_ID_PATTERN = /^[0-9a-f-]{36}$/i;

/** `GW_PO_` and the payout id without dashes: unique, and the provider's idempotency key. */
export const merchantReferenceOf = (payoutId: string) => `GW_PO_${payoutId.replace(/-/g, '').toUpperCase()}`;

/** The delivery as stored (encrypted) and served. */
export interface StoredDelivery {
  pin: string | null;
  serial: string | null;
  instructions: string | null;
  expires_at: string | null;
}

/** Where a delivery (PIN, serial) was read: each read is audited with its channel. */
export type DeliveryReadChannel = 'delivery_endpoint' | 'payout_response' | 'batch_response';

/** What came of one resend-sms request; a provider cooldown is remembered with it. */
export type SmsResendOutcome = 'sent' | 'rate_limited' | 'provider_refused' | 'provider_unavailable';

/**
 * A payout row as admission writes it. `submissionStartedAt` is set for single payouts, whose
 * provider call follows the commit at once; batch items get it when their job claims them.
 */
export type NewPayout = Pick<
  PayoutRecord,
  'id' | 'vendorId' | 'reference' | 'batchId' | 'batchPosition' | 'method' | 'amountCents' | 'feeCents' | 'merchantReference' | 'recipientEncrypted'
  | 'metadata' | 'requestFingerprint' | 'submissionStartedAt' | 'nextPollAt'
> & { statusReason: string };
