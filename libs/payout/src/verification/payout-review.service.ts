import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError } from '#common';
import { PAYOUT_ID_PATTERN, type PayoutStatus } from '../model/payout-record.js';
import { PayoutRepository } from '../persistence/payout.repository.js';

/**
 * Staff's "check the provider now" for a payout in `needs_review`: its status-poll chain gets its
 * next link now instead of on the slow review schedule. The link is the worker's ordinary poll
 * (PayoutStatusPoller): a verified answer closes the payout exactly as it would have an hour
 * later, and the link that was waiting becomes stale (its number is no longer the next).
 */
@Injectable()
export class PayoutReviewService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly payouts: PayoutRepository,
  ) {}

  async requestLookup(payoutId: string): Promise<{ scheduled: boolean; status: PayoutStatus }> {
    if (!PAYOUT_ID_PATTERN.test(payoutId)) throw new NotFoundError('payout');
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.payouts.findForWorker(payoutId, manager, true);
      if (!payout) throw new NotFoundError('payout');
      if (payout.status !== 'needs_review') return { scheduled: false, status: payout.status };
      await this.payouts.scheduleNextPoll(manager, payoutId, payout.pollCount + 1, await this.payouts.databaseNow(manager));
      return { scheduled: true, status: payout.status };
    });
  }
}
