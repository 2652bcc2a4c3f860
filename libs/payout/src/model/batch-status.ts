import type { PayoutStatus } from './payout-status.js';

export const BATCH_STATUSES = ['processing', 'completed', 'completed_with_failures', 'needs_review', 'cancelled'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/** Item statuses that keep a batch from being completed: while any item has one, no completion event is due. */
export const BATCH_OPEN_ITEM_STATUSES = ['pending', 'needs_review'] as const satisfies readonly PayoutStatus[];

/**
 * A batch's status, derived from its items on every read (never stored, so it cannot drift):
 * - `processing` while any item is pending;
 * - then `needs_review` if any item needs review;
 * - `cancelled` if every item was cancelled;
 * - `completed` if every item is paid;
 * - otherwise `completed_with_failures` (some failed, reversed or cancelled, nothing open).
 */
export function batchStatusOf(itemStatuses: readonly PayoutStatus[]): BatchStatus {
  const has = (status: PayoutStatus) => itemStatuses.includes(status);
  if (has('pending')) return 'processing';
  if (has('needs_review')) return 'needs_review';
  if (itemStatuses.length > 0 && itemStatuses.every((status) => status === 'cancelled')) return 'cancelled';
  if (itemStatuses.every((status) => status === 'paid')) return 'completed';
  return 'completed_with_failures';
}
