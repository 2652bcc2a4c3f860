import { Injectable } from '@nestjs/common';
import type { ClaimRound } from '#queues';
import { PurchaseTimings } from '../model/purchase-timings.js';
import { TransactionWorkRepository } from '../persistence/transaction-work.repository.js';
import { PurchaseClaimLoop } from '../purchase-claim-loop.js';
import { PurchaseSubmissionService } from './purchase-submission.service.js';

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
export class PurchaseSubmissionClaimsService extends PurchaseClaimLoop {
  protected readonly description = 'Purchase submission round';

  constructor(
    work: TransactionWorkRepository,
    timings: PurchaseTimings,
    private readonly submission: PurchaseSubmissionService,
  ) {
    super(work, timings);
  }

  override async round(batch: number): Promise<ClaimRound> {
    // Leased for the lookups before the creates.
    const claimed = await this.work.leaseSubmissions(batch, this.leaseMs, this.timings.verificationWindowMs);
    if (claimed.length === 0) return { claimed: 0 };
    const result = await this.submission.submitClaimed(claimed);
    return { claimed: claimed.length, backOff: result.unreachable > 0 };
  }
}
