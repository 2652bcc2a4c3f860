import { createHash } from 'node:crypto';
import type { CashSendSubmission } from '#providers';

/** Wire shape of PayoutRequest (payout contract); the HTTP DTOs implement it after structural validation. */
export interface PayoutRequestInput {
  reference: string;
  amount: string;
  currency: string;
  method: string;
  recipient: RecipientInput;
  metadata?: PayoutMetadata | null;
}

export interface RecipientInput {
  first_name: string;
  middle_name?: string | null;
  surname: string;
  phone: string;
  id_type: string;
  id_number: string;
  country_of_issue: string;
  nationality: string;
  email?: string | null;
  date_of_birth?: string | null;
  bank_account?: BankAccountInput | null;
}

export interface BankAccountInput {
  bank_name: string;
  account_number: string;
  account_name: string;
  branch_code: string;
}

/** Flat: string, number, boolean or null values only. Stored and echoed, never forwarded. */
export type PayoutMetadata = Record<string, string | number | boolean | null>;

/**
 * What is stored and echoed: the contract says metadata is "echoed as sent", so an explicit
 * null is kept (as JSON null in the NOT NULL jsonb column) and comes back as null; only an
 * absent field becomes `{}`.
 */
export function storedMetadataOf(metadata: PayoutMetadata | null | undefined): PayoutMetadata | null {
  return metadata === undefined ? {} : metadata;
}

/** What is stored (encrypted) about the recipient: every field, absent optional ones as null. */
export type StoredRecipient = Required<Omit<RecipientInput, 'id_type'>> & { id_type: CashSendSubmission['recipient']['idType'] };

export function storedRecipientOf(recipient: RecipientInput): StoredRecipient {
  return {
    first_name: recipient.first_name,
    middle_name: recipient.middle_name ?? null,
    surname: recipient.surname,
    phone: recipient.phone,
    id_type: recipient.id_type as StoredRecipient['id_type'],
    id_number: recipient.id_number,
    country_of_issue: recipient.country_of_issue,
    nationality: recipient.nationality,
    email: recipient.email ?? null,
    date_of_birth: recipient.date_of_birth ?? null,
    bank_account: recipient.bank_account
      ? {
          bank_name: recipient.bank_account.bank_name,
          account_number: recipient.bank_account.account_number,
          account_name: recipient.bank_account.account_name,
          branch_code: recipient.bank_account.branch_code,
        }
      : null,
  };
}

/**
 * The request as the idempotency check compares it: every field the vendor sent, absent and
 * null optional fields alike, keys sorted at every level. Two requests with the same
 * fingerprint ask for the same payout.
 */
export function canonicalPayoutRequest(request: PayoutRequestInput): Record<string, unknown> {
  return {
    reference: request.reference,
    amount: request.amount,
    currency: request.currency,
    method: request.method,
    recipient: storedRecipientOf(request.recipient),
    metadata: request.metadata ?? {},
  };
}

export function payoutFingerprint(request: PayoutRequestInput): string {
  return sha256(canonicalJson(canonicalPayoutRequest(request)));
}

export function batchFingerprint(reference: string, items: readonly PayoutRequestInput[]): string {
  return sha256(canonicalJson({ reference, payouts: items.map(canonicalPayoutRequest) }));
}

/**
 * `batchFingerprint` and every item's `payoutFingerprint` from one canonical serialisation of
 * each item (a 500-item batch needs both): the batch's canonical JSON is its items' canonical
 * JSON joined, keys `payouts` then `reference`.
 */
export function batchFingerprints(reference: string, items: readonly PayoutRequestInput[]): { batch: string; items: string[] } {
  const canonicalItems = items.map((item) => canonicalJson(canonicalPayoutRequest(item)));
  return {
    batch: sha256(`{"payouts":[${canonicalItems.join(',')}],"reference":${JSON.stringify(reference)}}`),
    items: canonicalItems.map(sha256),
  };
}

/** JSON with object keys sorted recursively, so key order in the request never matters. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
