import { Injectable } from '@nestjs/common';
import type { ClaimRound } from '#queues';
import { PurchaseVerificationClaimLoop } from './purchase-verification-claim-loop.js';

/**
 * Acts on the provider's callbacks: the gateway leaves a durable marker per callback
 * (purchase_callback_hint); the worker claims unanswered markers from PostgreSQL in batches
 * (TransactionWorkRepository.claimCallbackMarkers, leased) and verifies each transaction they name
 * once, with reason `callback` (a lookup even for a failed purchase: the provider may have created
 * it late). The verification consumes every open marker of the transaction with its recording, so
 * a burst of callbacks costs one lookup. A marker whose lookup could not answer (provider
 * unreachable) stays open and is claimed again when its lease ends.
 */
@Injectable()
export class PurchaseCallbackClaimsService extends PurchaseVerificationClaimLoop {
  protected readonly description = 'Purchase callback round';

  override async round(batch: number): Promise<ClaimRound> {
    // One verification per transaction, however many of its markers this round claimed.
    const { claimed, transactions } = await this.work.claimCallbackMarkers(batch, this.leaseMs);
    await this.workEach(transactions, (record) => record.id, (record) => this.verification.verify({ transactionId: record.id, reason: 'callback', marker: record.openMarker }, record));
    return { claimed };
  }
}
