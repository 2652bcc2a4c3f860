import { Injectable } from '@nestjs/common';
import { ClaimLoopService, type ClaimRound } from '#queues';
import { PurchaseTimings } from '../model/purchase-timings.js';
import { TransactionWorkRepository } from '../persistence/transaction-work.repository.js';
import { PurchaseVerificationService } from './purchase-verification.service.js';

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
export class PurchaseCallbackClaimsService extends ClaimLoopService {
  constructor(
    private readonly work: TransactionWorkRepository,
    private readonly verification: PurchaseVerificationService,
    private readonly timings: PurchaseTimings,
  ) {
    super(PurchaseCallbackClaimsService.name, 'Purchase callback round', () => timings.claimPace);
  }

  override async round(batch: number): Promise<ClaimRound> {
    const markers = await this.work.claimCallbackMarkers(batch, this.timings.claimLeaseMs);
    // One verification per transaction, however many of its markers this round claimed.
    const transactions = [...new Map(markers.map((marker) => [marker.transactionId, marker.marker]))];
    await this.workEach(transactions, ([transactionId]) => transactionId, ([transactionId, marker]) => this.verification.verify({ transactionId, reason: 'callback', marker }));
    return { claimed: markers.length };
  }
}
