import { Injectable } from '@nestjs/common';
import { GatewayEnv } from '#config';
import { jobSpec, QueueProducer, SweeperService } from '#queues';
import { PayoutWorkRepository } from '../persistence/payout-work.repository.js';
import { PayoutHoldWatchService } from './payout-hold-watch.service.js';

const SWEEP_LIMIT = 500;

/**
 * Redis may lose a job; PostgreSQL may not (README, "Architecture"). Every PAYOUT_SWEEP_INTERVAL_MS this
 * re-enqueues payout work that is overdue by more than a grace period: status polls whose time
 * has passed and batch items never claimed. The sweep job ids carry the sweep number so a job
 * that failed for good does not block its replacement; duplicates are harmless (poll links and
 * submission claims are guarded in PostgreSQL).
 */
@Injectable()
export class PayoutWorkSweepService extends SweeperService {
  constructor(
    private readonly work: PayoutWorkRepository,
    private readonly producer: QueueProducer,
    private readonly config: GatewayEnv,
    private readonly holds: PayoutHoldWatchService,
  ) {
    super(PayoutWorkSweepService.name, 'Payout sweep', () => config.PAYOUT_SWEEP_INTERVAL_MS);
  }

  /** Each tick also raises a staff exception for holds past PAYOUT_HOLD_MAX_AGE_MS (once per hold). */
  protected override async tick(): Promise<void> {
    await this.sweep();
    await this.holds.raiseOverdue();
  }

  /** Returns how many jobs were enqueued again. */
  override async sweep(graceMs = Math.max(60_000, 2 * this.config.PAYOUT_SWEEP_INTERVAL_MS)): Promise<number> {
    const sweepNumber = Math.floor(Date.now() / this.config.PAYOUT_SWEEP_INTERVAL_MS);
    const overduePolls = await this.work.overduePolls(graceMs, SWEEP_LIMIT);
    const unclaimed = await this.work.unclaimedItems(graceMs, SWEEP_LIMIT);
    for (const poll of overduePolls) await this.producer.add(jobSpec('payout.poll-status', { payoutId: poll.id, link: poll.pollCount }, `sweep-${sweepNumber}`));
    for (const payoutId of unclaimed) await this.producer.add(jobSpec('payout.batch-item', { payoutId }, `sweep-${sweepNumber}`));
    const total = overduePolls.length + unclaimed.length;
    if (total > 0) this.logger.warn({ polls: overduePolls.length, batchItems: unclaimed.length }, 'Re-enqueued overdue payout work');
    return total;
  }
}
