/** Our vocabulary for where a purchase stands at the provider. */
export type PurchaseOutcome = 'completed' | 'failed' | 'reversed' | 'in_progress' | 'not_found';

/**
 * Maps the provider's status class. Anything unrecognised counts as in progress: guessing a
 * final outcome from a status we do not know could release or keep money wrongly.
 */
export function purchaseOutcomeOf(statusClass: string): Exclude<PurchaseOutcome, 'not_found'> {
  switch (statusClass.toUpperCase()) {
    case 'COMPLETED':
      return 'completed';
    case 'DECLINED':
    case 'REJECTED':
    case 'CANCELLED':
      return 'failed';
    case 'REVERSED':
      return 'reversed';
    default:
      return 'in_progress';
  }
}
