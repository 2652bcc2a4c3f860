/** Our vocabulary for where a purchase stands at the provider. */
export type PurchaseOutcome = 'completed' | 'failed' | 'reversed' | 'in_progress' | 'not_found';

const OUTCOME_BY_STATUS_CLASS = new Map<string, Exclude<PurchaseOutcome, 'not_found'>>([
  ['COMPLETED', 'completed'],
  ['DECLINED', 'failed'],
  ['REJECTED', 'failed'],
  ['CANCELLED', 'failed'],
  ['REVERSED', 'reversed'],
]);

/**
 * Maps the provider's status class. Anything unrecognised counts as in progress: guessing a
 * final outcome from a status we do not know could release or keep money wrongly.
 */
export function purchaseOutcomeOf(statusClass: string): Exclude<PurchaseOutcome, 'not_found'> {
  return OUTCOME_BY_STATUS_CLASS.get(statusClass.toUpperCase()) ?? 'in_progress';
}
