import { parseZarAmount2dp } from '#money';
import type { ExceptionDeskItem } from '#reconciliation';

/** A provider's status word in our record's vocabulary (payouts: paid, failed, reversed; purchases: completed, failed, reversed). */
const PAYOUT_STATUS_OF: Record<string, string> = { PAID: 'paid', SETTLED: 'paid', REJECTED: 'failed', FAILED: 'failed', REVERSED: 'reversed' };
const PURCHASE_STATUS_OF: Record<string, string> = { COMPLETED: 'completed', SETTLED: 'completed', DECLINED: 'failed', REJECTED: 'failed', CANCELLED: 'failed', FAILED: 'failed', REVERSED: 'reversed' };

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
const nested = (details: Record<string, unknown>, key: string): Record<string, unknown> => {
  const value = details[key];
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
};

/** What the provider said, as the exception's evidence recorded it (a report line, a lookup's answer). */
export function providerClaim(details: Record<string, unknown>): { status: string | null; amount: string | null; reference: string | null } {
  const answered = nested(details, 'answered');
  return {
    status: text(details.provider_says) ?? text(details.provider_status) ?? text(answered.status),
    amount: text(details.provider_amount) ?? text(answered.amount),
    reference: text(answered.merchant_reference),
  };
}

const sameAmount = (a: string, b: string): boolean => {
  try {
    return parseZarAmount2dp(a) === parseZarAmount2dp(b);
  } catch {
    return false;
  }
};

/**
 * Why `record_corrected` cannot close this exception, or null when it can: the record must
 * exist, and its state now must agree with everything the provider said in the evidence: the
 * status (in our vocabulary), the amount and the reference. A record a verified provider answer
 * has since moved agrees; an amount or reference that differed still differs (it never changes
 * on our side), so such an exception needs another resolution.
 */
export function disagreementWithProvider(item: ExceptionDeskItem): string | null {
  if (!item.recordStatus) return 'The exception names no record of ours to be corrected.';
  const claim = providerClaim(item.details);
  if (!claim.status) return 'The evidence holds no provider status to agree with.';
  const wanted = (item.domain === 'payout' ? PAYOUT_STATUS_OF : PURCHASE_STATUS_OF)[claim.status.toUpperCase()];
  if (!wanted) return `The provider's status ${claim.status} is not a final outcome.`;
  if (wanted !== item.recordStatus) return `The record is ${item.recordStatus}; the provider said ${claim.status}. Only a verified provider answer moves it; until then choose another resolution.`;
  const ours = text(item.details.our_amount) ?? text(nested(item.details, 'sent').amount);
  if (claim.amount && ours && !sameAmount(claim.amount, ours)) return `The provider's amount ${claim.amount} differs from ours (${ours}).`;
  const sentReference = text(nested(item.details, 'sent').merchant_reference);
  if (claim.reference && sentReference && claim.reference !== sentReference) return `The provider answered about ${claim.reference}, not ${sentReference}.`;
  const ourProviderReference = text(item.details.our_provider_reference) ?? text(item.details.our_provider_transaction_id);
  const lineReference = text(item.details.provider_reference);
  if (ourProviderReference && lineReference && ourProviderReference !== lineReference) return `The provider's reference ${lineReference} differs from ours (${ourProviderReference}).`;
  return null;
}
