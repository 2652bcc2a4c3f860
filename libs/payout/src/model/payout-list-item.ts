import type { BatchRecord } from './batch-view.js';
import type { PayoutStatus } from './payout-status.js';
import type { PayoutViewFields } from './payout-view.js';

/** A batch of a list or export, with its items' statuses (its status is derived from them). */
export type BatchListItem = Omit<BatchRecord, 'vendorId' | 'requestFingerprint'> & { itemStatuses: PayoutStatus[] };

/** A payout of a list or export, with the batch it is an item of. */
export type PayoutListLine = PayoutViewFields & { batchId: string | null; batchPosition: number | null; batchReference: string | null };
