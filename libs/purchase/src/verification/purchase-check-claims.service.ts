import { Injectable } from '@nestjs/common';
import type { ClaimRound } from '#queues';
import { PurchaseVerificationClaimLoop } from './purchase-verification-claim-loop.js';

/**
 * Delivers the polling chain's checks: the worker claims transactions whose `next_check_at` is due
 * from PostgreSQL in batches (TransactionWorkRepository.claimDueChecks, `FOR UPDATE SKIP LOCKED`)
 * and verifies them at once. The schedule and its delivery are one thing, in PostgreSQL: no
 * delayed job per check, no job to withdraw when a callback's lookup supersedes a poll (it moves
 * `next_check_at`, so the poll is never claimed), and nothing for a sweeper to rebuild after a
 * Redis loss. A claim leases the check (PurchaseTimings.claimLeaseMs): the verification writes the
 * chain's next check with its recording, and a check whose claimant died is claimed again when
 * the lease runs out.
 */
@Injectable()
export class PurchaseCheckClaimsService extends PurchaseVerificationClaimLoop {
  protected readonly description = 'Purchase check round';

  override async round(batch: number): Promise<ClaimRound> {
    const due = await this.work.claimDueChecks(batch, this.leaseMs);
    await this.workEach(due, (record) => record.id, (record) => this.verification.verify({ transactionId: record.id, reason: 'poll', check: record.checkSeq }, record));
    return { claimed: due.length };
  }
}
