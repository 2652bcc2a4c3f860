import { parseDecimalAmount, type Cents } from '#money';
import type { PayoutProviderPayment } from '#providers';
import type { PayoutRecord } from '../model/payout-record.js';

// Pure readings of a provider's answer, shared by the outcome services.

/** What differs between the provider's answer and what we sent; empty when it is about our payout. */
export function answerMismatchesOf(payout: PayoutRecord, payment: PayoutProviderPayment): Array<'reference_mismatch' | 'amount_mismatch'> {
  const mismatches: Array<'reference_mismatch' | 'amount_mismatch'> = [];
  if (payment.merchantReference !== payout.merchantReference) mismatches.push('reference_mismatch');
  if (answeredCents(payment.amount) !== payout.amountCents) mismatches.push('amount_mismatch');
  return mismatches;
}

/** The contact a found payment is recorded with. */
export function answerContact(payment: PayoutProviderPayment, fromSubmission: boolean): { httpStatus: number; summary: string } {
  return {
    httpStatus: fromSubmission ? (payment.replayed ? 200 : 201) : 200,
    summary: `provider status ${payment.providerStatus ?? 'none'}${payment.replayed ? ' (already held)' : ''}`.slice(0, 500),
  };
}

/** The provider's amount in cents; null when absent or not a plain decimal (which never matches ours). */
export function answeredCents(amount: string | null): Cents | null {
  if (amount === null) return null;
  try {
    return parseDecimalAmount(amount, { maxPlaces: 2 });
  } catch {
    return null;
  }
}

export function validDate(value: string | null): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
