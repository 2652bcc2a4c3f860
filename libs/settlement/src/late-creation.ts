import type { EntityManager } from 'typeorm';
import type { ReconciliationExceptionsRepository } from '#reconciliation';

export interface LateCreation {
  transactionId: string;
  vendorId: string;
  providerStatus: string;
  providerTransactionId: string;
  /** Set when a settlement report line told us; null for other sources. */
  reportDate?: string | null;
  details?: Record<string, unknown>;
}

/**
 * A purchase we closed as failed (allowance returned, nothing delivered) that the provider says
 * it created. Never a silent delivery: it stays failed and staff decide (refund the provider,
 * or charge and deliver). Same kind, dedupe key and details shape as the purchase domain's
 * `PurchaseOutcomeRecorder.recordLateCreation`, so a callback and a report telling the same
 * story leave one exception; once that method lands on main this should call it instead.
 */
export async function raiseLateCreation(exceptions: ReconciliationExceptionsRepository, lateCreation: LateCreation, manager?: Pick<EntityManager, 'query'>): Promise<boolean> {
  return exceptions.raise(
    {
      domain: 'purchase',
      kind: 'late_creation',
      dedupeKey: lateCreationDedupeKey(lateCreation.transactionId),
      vendorId: lateCreation.vendorId,
      purchaseTransactionId: lateCreation.transactionId,
      provider: 'dvs',
      reportDate: lateCreation.reportDate ?? null,
      details: { provider_status: lateCreation.providerStatus, provider_transaction_id: lateCreation.providerTransactionId, ...lateCreation.details },
    },
    manager,
  );
}

export function lateCreationDedupeKey(transactionId: string): string {
  return `purchase:${transactionId}:late_creation`;
}
