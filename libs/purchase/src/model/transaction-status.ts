export const TRANSACTION_STATUSES = ['pending', 'completed', 'failed', 'reversed', 'review'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** The allowed moves (docs/PURCHASE.md): pending → completed | failed | review; review → completed | failed; completed → reversed. */
export const ALLOWED_MOVES: Record<TransactionStatus, readonly TransactionStatus[]> = {
  pending: ['completed', 'failed', 'review'],
  review: ['completed', 'failed'],
  completed: ['reversed'],
  failed: [],
  reversed: [],
};

export function canMove(from: TransactionStatus, to: TransactionStatus): boolean {
  return ALLOWED_MOVES[from].includes(to);
}

/** Every status `to` may be reached from, in TRANSACTION_STATUSES order: what a guarded move's WHERE accepts. */
export function sourcesOf(to: TransactionStatus): TransactionStatus[] {
  return TRANSACTION_STATUSES.filter((from) => canMove(from, to));
}

/** What the provider verifiably says about a transaction. */
export type VerifiedOutcome = 'completed' | 'failed' | 'reversed';

/**
 * The moves that bring a transaction in line with a verified provider outcome, or [] when it
 * already agrees or the outcome cannot legally apply (e.g. "failed" after "completed", which is
 * a provider anomaly for staff, never a silent change). A provider that reports "reversed" for
 * a transaction we still hold as pending completed it first, so both moves are recorded.
 */
export function movesToward(current: TransactionStatus, outcome: VerifiedOutcome): TransactionStatus[] {
  if (current === outcome) return [];
  if (canMove(current, outcome)) return [outcome];
  if (outcome === 'reversed' && canMove(current, 'completed')) return ['completed', 'reversed'];
  return [];
}

export function isOpen(status: TransactionStatus): boolean {
  return status === 'pending' || status === 'review';
}
