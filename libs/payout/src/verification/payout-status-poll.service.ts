import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PayoutProviderPayment } from '#providers';
import { PayoutOutcomeRepository } from '../persistence/payout-outcome.repository.js';
import { PayoutRepository } from '../persistence/payout.repository.js';
import { PayoutWorkRepository } from '../persistence/payout-work.repository.js';
import { providerErrorEvidence } from '../model/payout-outcome.js';
import { PayoutOutcomesService } from '../outcomes/payout-outcomes.service.js';
import { PayoutPollSchedule } from '../model/payout-poll-schedule.js';
import { PayoutRails } from '../provider/payout-rails.js';

/**
 * One link of a payout's status-poll chain. Links are numbered; `payouts.poll_count` names the
 * link that may run next, so a duplicated or stale job changes nothing. Each link looks the
 * payout up by merchant reference (never submits), applies the answer, and in the same
 * transaction schedules the next link through the outbox, moves the payout to needs_review when
 * the window is over (and goes on polling it slowly), or ends the chain.
 */
@Injectable()
export class PayoutStatusPollService {
  private readonly logger = new Logger(PayoutStatusPollService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly payouts: PayoutRepository,
    private readonly records: PayoutOutcomeRepository,
    private readonly work: PayoutWorkRepository,
    private readonly rails: PayoutRails,
    private readonly outcomes: PayoutOutcomesService,
    private readonly schedule: PayoutPollSchedule,
  ) {}

  async poll(payoutId: string, link: number): Promise<void> {
    const payout = await this.payouts.findForWorker(payoutId);
    if (!payout) {
      this.logger.warn({ payoutId }, 'Status poll for a payout this database does not hold; ignored');
      return;
    }
    if (payout.pollCount !== link) return;

    let payment: PayoutProviderPayment | null = null;
    const open = payout.status === 'pending' || payout.status === 'needs_review';
    if (open || (payout.status === 'paid' && this.schedule.next(payout, link).kind === 'poll')) {
      try {
        payment = await this.rails.lookup(payout.method, payout.merchantReference);
      } catch (error) {
        // The transport already retried the read; this link simply learns nothing and the chain goes on.
        this.logger.warn({ payoutId, err: (error as Error).message }, 'Payout status lookup failed');
        await this.outcomes.recordLookupFailed(payoutId, providerErrorEvidence(error));
      }
    }

    await this.dataSource.transaction(async (manager) => {
      const locked = await this.payouts.findForWorker(payoutId, manager, true);
      if (!locked || locked.pollCount !== link) return;
      const current = payment ? await this.outcomes.applyToLocked(manager, locked, payment, false) : locked;
      let decision = this.schedule.next(current, link);
      if (decision.kind === 'review') {
        this.logger.warn({ payoutId }, 'Payout outcome still unknown; needs_review with funds reserved, looked up on the slow review schedule');
        // The hold stays reserved. No payout event for needs_review (not a vendor event); a batch
        // whose last open item moves here is not complete either.
        await this.records.markNeedsReview(manager, payoutId);
        // Review is not the end of the chain: a late provider answer, or proof that the provider never received it, still closes it.
        decision = { kind: 'poll', at: this.schedule.reviewPollAt() };
      }
      if (decision.kind === 'poll') {
        // The next link and its outbox row in one statement.
        await this.work.scheduleNextPoll(manager, payoutId, link + 1, decision.at);
        return;
      }
      await this.work.endPolls(manager, payoutId, link + 1);
    });
  }
}

/**
 * The link a poll job stands for. Jobs enqueued before the payload carried `link` hold it only in
 * their id, `payout-poll.{payoutId}.{link}`; they may still be queued during a rolling upgrade.
 */
export function pollLinkOf(job: { id?: string; data: { link?: number } }): number | null {
  const link = job.data.link ?? Number(job.id?.split('.')[2]);
  return Number.isSafeInteger(link) && link >= 0 ? link : null;
}
