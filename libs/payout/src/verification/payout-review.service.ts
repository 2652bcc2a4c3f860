import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError } from '#common';
import type { PayoutContact, PayoutStaffItem } from '../model/payout-evidence.js';
import { PAYOUT_ID_PATTERN } from '../model/payout-record.js';
import type { PayoutStatus } from '../model/payout-status.js';
import { PayoutEvidenceRepository } from '../persistence/payout-evidence.repository.js';
import { PayoutOutcomeRepository } from '../persistence/payout-outcome.repository.js';
import { PayoutRepository } from '../persistence/payout.repository.js';
import { PayoutStaffRepository } from '../persistence/payout-staff.repository.js';
import { PayoutWorkRepository } from '../persistence/payout-work.repository.js';

/**
 * What staff review of payouts (the back-office, across vendors) reads and asks: the review
 * queue, one payout with its provider trail, the search, and "check the provider now".
 */
@Injectable()
export class PayoutReviewService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly payouts: PayoutRepository,
    private readonly records: PayoutOutcomeRepository,
    private readonly work: PayoutWorkRepository,
    private readonly staff: PayoutStaffRepository,
    private readonly evidence: PayoutEvidenceRepository,
  ) {}

  /** Payouts waiting in `needs_review`, oldest first. */
  reviewQueue(limit: number): Promise<PayoutStaffItem[]> {
    return this.staff.reviewQueue(limit);
  }

  /** How many payouts wait in `needs_review` and how long the oldest has (seconds; 0 when none). */
  reviewDepth(): Promise<{ count: number; oldestAgeSeconds: number }> {
    return this.staff.reviewDepth();
  }

  /** One payout as staff see it; null for an id this database does not hold. */
  item(payoutId: string): Promise<PayoutStaffItem | null> {
    return this.staff.staffItem(payoutId);
  }

  /** The payout's provider trail, oldest first: every submission and lookup and what the provider said. */
  contacts(payoutId: string): Promise<PayoutContact[]> {
    return this.evidence.contacts(payoutId);
  }

  /** The payout with this id and those whose reference matches the LIKE pattern, newest first. */
  search(id: string | null, referencePattern: string, limit: number): Promise<PayoutStaffItem[]> {
    return this.staff.staffSearch(id, referencePattern, limit);
  }

  /**
   * Staff's "check the provider now" for a payout in `needs_review`: its status-poll chain gets its
   * next link now instead of on the slow review schedule. The link is the worker's ordinary poll
   * (PayoutStatusPollService): a verified answer closes the payout exactly as it would have an hour
   * later, and the link that was waiting becomes stale (its number is no longer the next).
   */

  async requestLookup(payoutId: string): Promise<{ scheduled: boolean; status: PayoutStatus }> {
    if (!PAYOUT_ID_PATTERN.test(payoutId)) throw new NotFoundError('payout');
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.payouts.findForWorker(payoutId, manager, true);
      if (!payout) throw new NotFoundError('payout');
      if (payout.status !== 'needs_review') return { scheduled: false, status: payout.status };
      await this.work.scheduleNextPoll(manager, payoutId, payout.pollCount + 1, await this.records.databaseNow(manager));
      return { scheduled: true, status: payout.status };
    });
  }
}
