/** Our vocabulary for where a payout stands at its provider. */
export type PayoutOutcome = 'paid' | 'rejected' | 'pending' | 'reversed' | 'unknown';

/** Anything the provider reports that we do not recognise stays `unknown`, never a final outcome. */
export function payoutOutcomeOf(providerStatus: string): PayoutOutcome {
  switch (providerStatus.toUpperCase()) {
    case 'PAID':
      return 'paid';
    case 'REJECTED':
      return 'rejected';
    case 'PENDING':
      return 'pending';
    case 'REVERSED':
      return 'reversed';
    default:
      return 'unknown';
  }
}
