import type { PayoutRecord } from './payout-record.js';

/** One exchange with the provider as kept in `payout_provider_contacts` (never a PIN or a key). */
export interface ProviderContactEntry {
  payoutId: string;
  kind: 'submission' | 'lookup';
  outcome: string;
  httpStatus: number | null;
  summary: string | null;
}

/** One recorded exchange with the provider (`payout_provider_contacts`). */
export type PayoutContact = Omit<ProviderContactEntry, 'payoutId'> & { at: Date };

/** A payout as staff see it in the back-office: across vendors; never the recipient or a PIN. */
export type PayoutStaffItem = Pick<
  PayoutRecord,
  'id' | 'vendorId' | 'reference' | 'method' | 'amountCents' | 'feeCents' | 'status' | 'statusReason' | 'merchantReference' | 'providerReference'
  | 'createdAt' | 'submissionStartedAt' | 'submissionAnsweredAt' | 'nextPollAt'
> & {
  vendorName: string;
  /** When it entered needs_review (else its creation). */
  waitingSince: Date;
};
