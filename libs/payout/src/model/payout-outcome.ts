import type { DeliveryReadChannel, PayoutRecord } from './payout-record.js';
import type { ProviderContactEntry } from './payout-evidence.js';

/**
 * Where a provider statement came from, for the exceptions it raises: a settlement line names
 * its report day, its provider and the line's evidence; a lookup or submission answer only `via`.
 */
export interface PayoutObservation {
  via: 'submission' | 'lookup' | 'settlement_report';
  provider?: string;
  reportDate?: string | null;
  details?: Record<string, unknown>;
}

/** What a contact records of one exchange with the provider (never a PIN or a key). */
export type ProviderContactEvidence = Partial<Pick<ProviderContactEntry, 'httpStatus' | 'summary'>>;

/**
 * A failed provider call as evidence: its stable code and HTTP status only. The message is left
 * out on purpose: a provider's error text may echo what it was sent (a recipient's identity).
 */
export function providerErrorEvidence(error: unknown): ProviderContactEvidence {
  const { code, status } = error as { code?: unknown; status?: unknown };
  const httpStatus = typeof status === 'number' ? status : null;
  return { httpStatus, summary: `${typeof code === 'string' ? code : 'UNEXPECTED_ERROR'}${httpStatus !== null ? ` (HTTP ${httpStatus})` : ''}` };
}

/**
 * What a single payout's request writes with its submission's verdict when it can (PayoutRequestService):
 * the NOTIFY that wakes replays waiting for the answer, and the delivery-read audit row of a
 * response that embeds the delivery.
 */
export interface SubmissionFollowUp {
  notifyChannel: string;
  deliveryRead: { tokenId: string; channel: DeliveryReadChannel } | null;
}

/** A submission's verdict; `followedUp` tells whether the follow-up was written with it (else the caller writes it). */
export interface SubmissionVerdict {
  payout: PayoutRecord | null;
  followedUp: boolean;
}
