import type { Product } from '../catalogue/purchase-catalogue.data.js';
import type { IdentifierGroups } from '../requirements.js';
import type { PurchaseFulfilment } from './purchase-fulfilment.js';

/** DVS-style statuses: a detailed status plus the class a client maps on. */
export const PURCHASE_STATUSES = {
  SUBMITTED: { id: 50000, message: 'SUBMITTED', class: { id: 5, message: 'SUBMITTED' } },
  COMPLETED: { id: 70000, message: 'COMPLETED', class: { id: 7, message: 'COMPLETED' } },
  REVERSED: { id: 80000, message: 'REVERSED', class: { id: 8, message: 'REVERSED' } },
  DECLINED: { id: 90201, message: 'DECLINED-OPERATOR-REJECTED', class: { id: 9, message: 'DECLINED' } },
} as const;
export type PurchaseStatus = keyof typeof PURCHASE_STATUSES;

/** What a test value makes the provider do (README, "Sandbox test values"). */
export interface PurchaseScenario {
  outcome: 'complete' | 'decline' | 'stay_submitted';
  submission: 'answers' | 'hangs' | 'fails_with_500';
  reverseAfterCompletion: boolean;
  callbacks: 'on_change' | 'never' | 'ahead_of_status';
  /** `late`: the first GET that shows the completion carries no PIN or eSIM data; later GETs do. */
  fulfilment: 'with_completion' | 'late';
  /**
   * `on_request`: the create answers HTTP 500 and creates nothing, but the provider keeps the
   * request and creates it when `POST /__sandbox/purchase/late-create` says so (a late creation).
   */
  lateCreation: 'never' | 'on_request';
}

const ORDINARY: PurchaseScenario = {
  outcome: 'complete',
  submission: 'answers',
  reverseAfterCompletion: false,
  callbacks: 'on_change',
  fulfilment: 'with_completion',
  lateCreation: 'never',
};

const PURCHASE_TEST_VALUES: Record<string, PurchaseScenario> = {
  '01': { ...ORDINARY, outcome: 'decline' },
  '02': { ...ORDINARY, submission: 'hangs' },
  '03': { ...ORDINARY, submission: 'fails_with_500' },
  '04': { ...ORDINARY, reverseAfterCompletion: true },
  '05': { ...ORDINARY, outcome: 'stay_submitted' },
  '06': { ...ORDINARY, callbacks: 'ahead_of_status' },
  '07': { ...ORDINARY, callbacks: 'never' },
  '08': { ...ORDINARY, fulfilment: 'late' },
  '09': { ...ORDINARY, submission: 'fails_with_500', lateCreation: 'on_request' },
};

export function purchaseScenarioFor(suffix: string | null): PurchaseScenario {
  return (suffix !== null ? PURCHASE_TEST_VALUES[suffix] : undefined) ?? ORDINARY;
}

/** A create request once validated: what a transaction is made of (or held as, for late creation). */
export interface PurchaseRequest {
  externalId: string;
  product: Product;
  destinationAmount: string;
  wholesalePrice: string;
  identifiers: IdentifierGroups;
  callbackUrl: string | null;
}

export interface PurchaseTransaction extends PurchaseRequest {
  id: number;
  status: PurchaseStatus;
  createdAt: Date;
  completedAt: Date | null;
  reversedAt: Date | null;
  declinedAt: Date | null;
  fulfilment: PurchaseFulfilment | null;
  /** GETs of the completed transaction still to answer without its fulfilment (test value 08). */
  fulfilmentWithheldReads: number;
}

/** The provider's JSON for a transaction; fulfilment appears only while the transaction is COMPLETED. */
export function purchaseTransactionView(transaction: PurchaseTransaction, options: { withholdFulfilment?: boolean } = {}) {
  const { product, fulfilment } = transaction;
  const delivered = transaction.status === 'COMPLETED' && !options.withholdFulfilment ? fulfilment : null;
  return {
    id: transaction.id,
    external_id: transaction.externalId,
    creation_date: transaction.createdAt.toISOString(),
    confirmation_date: transaction.createdAt.toISOString(),
    completion_date: transaction.completedAt?.toISOString() ?? null,
    reversal_date: transaction.reversedAt?.toISOString() ?? null,
    decline_date: transaction.declinedAt?.toISOString() ?? null,
    status: PURCHASE_STATUSES[transaction.status],
    product: { id: product.id, name: product.name, type: product.type, service: product.service, operator: product.operator },
    destination: { amount: transaction.destinationAmount, unit: product.destination_currency },
    prices: { wholesale: { amount: transaction.wholesalePrice, unit: 'ZAR' } },
    ...transaction.identifiers,
    pin: delivered?.pin ?? null,
    esim: delivered?.esim ?? null,
  };
}
