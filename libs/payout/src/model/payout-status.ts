export const PAYOUT_STATUSES = ['pending', 'paid', 'failed', 'reversed', 'needs_review', 'cancelled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** The statuses in which a payout holds its amount + fee reserved and a provider answer (or staff) may still close it. */
export const PAYOUT_OPEN_STATUSES = ['pending', 'needs_review'] as const satisfies readonly PayoutStatus[];

/**
 * The allowed moves (docs/PAYOUT.md): a pending payout is paid, failed, sent to review or
 * cancelled (never handed to a provider); review ends paid or failed (the provider's answer, or
 * two staff); a paid payout can be reversed by the provider; a failed one can still be proved
 * paid by the provider after its hold was released (paid_after_release). The repository's
 * guarded status updates are built from this table, so a move not listed here cannot be written.
 */
const ALLOWED_MOVES: Record<PayoutStatus, readonly PayoutStatus[]> = {
  pending: ['paid', 'failed', 'needs_review', 'cancelled'],
  needs_review: ['paid', 'failed'],
  paid: ['reversed'],
  failed: ['paid'],
  reversed: [],
  cancelled: [],
};

export function canMove(from: PayoutStatus, to: PayoutStatus): boolean {
  return ALLOWED_MOVES[from].includes(to);
}

/** Every status `to` may be reached from, in PAYOUT_STATUSES order. */
export function sourcesOf(to: PayoutStatus): PayoutStatus[] {
  return PAYOUT_STATUSES.filter((from) => canMove(from, to));
}
