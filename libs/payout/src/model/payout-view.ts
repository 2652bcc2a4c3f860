import { formatCents } from '#money';
import type { PayoutMethod } from './payout-method-catalogue.js';
import type { PayoutMetadata } from './payout-request.js';
import type { PayoutRecord, StoredDelivery } from './payout-record.js';
import type { PayoutStatus } from './payout-status.js';

/** Delivery (payout contract): PIN and serial for cash rails, PIN, serial, instructions and expiry for vouchers. */
export type DeliveryView = StoredDelivery;

/** Payout (payout contract, response `data`). */
export interface PayoutView {
  id: string;
  reference: string;
  status: PayoutStatus;
  status_reason: string | null;
  method: PayoutMethod;
  amount: string;
  fee: string;
  currency: 'ZAR';
  merchant_reference: string;
  provider_reference: string | null;
  delivery: DeliveryView | null;
  /** Echoed as sent: an explicit null stays null; absent is `{}`. */
  metadata: PayoutMetadata | null;
  created_at: string;
  paid_at: string | null;
}

/** The fields of a payout its view shows (a list reads only these). */
export type PayoutViewFields = Pick<PayoutRecord, 'id' | 'reference' | 'status' | 'statusReason' | 'method' | 'amountCents' | 'feeCents' | 'merchantReference' | 'providerReference' | 'metadata' | 'createdAt' | 'paidAt'>;

/** Timestamps are ISO 8601 in UTC (`...Z`, the zero UTC offset). */
export function payoutViewOf(payout: PayoutViewFields, delivery: DeliveryView | null): PayoutView {
  return {
    id: payout.id,
    reference: payout.reference,
    status: payout.status,
    status_reason: payout.statusReason,
    method: payout.method,
    amount: formatCents(payout.amountCents),
    fee: formatCents(payout.feeCents),
    currency: 'ZAR',
    merchant_reference: payout.merchantReference,
    provider_reference: payout.providerReference,
    delivery,
    metadata: payout.metadata,
    created_at: payout.createdAt.toISOString(),
    paid_at: payout.paidAt?.toISOString() ?? null,
  };
}
