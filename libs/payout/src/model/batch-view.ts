import { formatCents, type Cents } from '#money';
import { batchStatusOf, type BatchStatus } from './batch-status.js';
import type { PayoutRecord } from './payout-record.js';
import type { PayoutRequestInput } from './payout-request.js';
import { payoutViewOf, type DeliveryView, type PayoutView } from './payout-view.js';

export const MAX_BATCH_ITEMS = 500;

export interface BatchRequestInput {
  reference: string;
  payouts: PayoutRequestInput[];
}

/** A batch's own row; its status is derived from its items' statuses on every read. */
export interface BatchRecord {
  id: string;
  vendorId: string;
  reference: string;
  requestFingerprint: string;
  itemCount: number;
  totalAmountCents: Cents;
  totalFeeCents: Cents;
  createdAt: Date;
}

/** Batch (payout contract). */
export interface BatchView {
  id: string;
  reference: string;
  status: BatchStatus;
  total_amount: string;
  total_fee: string;
  item_count: number;
  payouts: PayoutView[];
  created_at: string;
  currency: 'ZAR';
}

/** The batch as the API answers it and as `batch.completed` carries it (there with no deliveries). */
export function batchViewOf(batch: BatchRecord, items: readonly PayoutRecord[], deliveries: ReadonlyMap<string, DeliveryView> = new Map()): BatchView {
  return {
    id: batch.id,
    reference: batch.reference,
    status: batchStatusOf(items.map((item) => item.status)),
    total_amount: formatCents(batch.totalAmountCents),
    total_fee: formatCents(batch.totalFeeCents),
    item_count: batch.itemCount,
    payouts: items.map((item) => payoutViewOf(item, deliveries.get(item.id) ?? null)),
    created_at: batch.createdAt.toISOString(),
    currency: 'ZAR',
  };
}
