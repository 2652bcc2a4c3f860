import { Injectable } from '@nestjs/common';
import { ClaimLoopService, type ClaimRound } from '#queues';
import { PurchaseTimings } from '../model/purchase-timings.js';
import { TransactionWorkRepository } from '../persistence/transaction-work.repository.js';
import { PurchaseSubmissionService } from './purchase-submission.service.js';

/** The longest pause while the provider cannot be reached (doubling from PURCHASE_CLAIM_IDLE_MS). */
const MAX_BACKOFF_MS = 30_000;

/**
 * How admitted purchases reach the provider: the worker leases them from PostgreSQL in batches
 * (TransactionWorkRepository.leaseSubmissions, `FOR UPDATE SKIP LOCKED`) and sends each batch at
 * once (PurchaseSubmissionService.submitClaimed: lookups, the attempts claimed in one statement,
 * creates, the outcomes recorded in one statement). A purchase row is its own durable intent to be
 * submitted: no outbox row, relay round or queue job per purchase, and replicas share the rows.
 * While the provider cannot be reached the loop backs off; the leases it gave back are taken
 * again by a later round, and a lease whose worker died runs out.
 */
@Injectable()
export class PurchaseSubmissionClaims extends ClaimLoopService {
  constructor(
    private readonly work: TransactionWorkRepository,
    private readonly submission: PurchaseSubmissionService,
    private readonly timings: PurchaseTimings,
  ) {
    super(PurchaseSubmissionClaims.name, 'Purchase submission round', () => ({ batch: timings.claimBatch, idleMs: timings.claimIdleMs, maxBackoffMs: MAX_BACKOFF_MS }));
  }

  override async round(batch: number): Promise<ClaimRound> {
    // Leased for the lookups before the creates: twice the provider timeout, as the attempt's own safety net.
    const claimed = await this.work.leaseSubmissions(batch, 2 * this.timings.providerTimeoutMs, this.timings.verificationWindowMs);
    if (claimed.length === 0) return { claimed: 0 };
    const result = await this.submission.submitClaimed(claimed);
    return { claimed: claimed.length, backOff: result.unreachable > 0 };
  }
}
