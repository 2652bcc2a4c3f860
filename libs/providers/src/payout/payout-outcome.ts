/** Our vocabulary for where a payout stands at its provider. */
export type PayoutOutcome = 'paid' | 'rejected' | 'pending' | 'reversed' | 'unknown';

const OUTCOME_BY_STATUS = new Map<string, PayoutOutcome>([
  ['PAID', 'paid'],
  ['REJECTED', 'rejected'],
  ['PENDING', 'pending'],
  ['REVERSED', 'reversed'],
]);

/** Anything the provider reports that we do not recognise stays `unknown`, never a final outcome. */
export function payoutOutcomeOf(providerStatus: string): PayoutOutcome {
  return OUTCOME_BY_STATUS.get(providerStatus.toUpperCase()) ?? 'unknown';
}
