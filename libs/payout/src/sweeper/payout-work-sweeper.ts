import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { GatewayEnv } from '#config';
import { jobSpec, PeriodicSweep, QueueProducer } from '#queues';

const SWEEP_LIMIT = 500;

/**
 * Redis may lose a job; PostgreSQL may not (README, "Architecture"). Every PAYOUT_SWEEP_INTERVAL_MS this
 * re-enqueues payout work that is overdue by more than a grace period: status polls whose time
 * has passed and batch items never claimed. The sweep job ids carry the sweep number so a job
 * that failed for good does not block its replacement; duplicates are harmless (poll links and
 * submission claims are guarded in PostgreSQL).
 */
@Injectable()
export class PayoutWorkSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PayoutWorkSweeper.name);
  private readonly loop = new PeriodicSweep('Payout sweep', this.logger);

  constructor(
    private readonly dataSource: DataSource,
    private readonly producer: QueueProducer,
    private readonly config: GatewayEnv,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start(this.config.PAYOUT_SWEEP_INTERVAL_MS, () => this.sweep());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** Returns how many jobs were enqueued again. */
  async sweep(graceMs = Math.max(60_000, 2 * this.config.PAYOUT_SWEEP_INTERVAL_MS)): Promise<number> {
    const sweepNumber = Math.floor(Date.now() / this.config.PAYOUT_SWEEP_INTERVAL_MS);
    const overduePolls: Array<{ id: string; poll_count: number }> = await this.dataSource.query(
      `SELECT id, poll_count FROM payouts WHERE next_poll_at < now() - make_interval(secs => $1::double precision / 1000) ORDER BY next_poll_at LIMIT $2`,
      [graceMs, SWEEP_LIMIT],
    );
    const unclaimed: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM payouts WHERE status = 'pending' AND submission_started_at IS NULL
          AND created_at < now() - make_interval(secs => $1::double precision / 1000) ORDER BY created_at LIMIT $2`,
      [graceMs, SWEEP_LIMIT],
    );
    for (const row of overduePolls) await this.producer.add(jobSpec('payout.poll-status', { payoutId: row.id, link: row.poll_count }, `sweep-${sweepNumber}`));
    for (const row of unclaimed) await this.producer.add(jobSpec('payout.batch-item', { payoutId: row.id }, `sweep-${sweepNumber}`));
    const total = overduePolls.length + unclaimed.length;
    if (total > 0) this.logger.warn({ polls: overduePolls.length, batchItems: unclaimed.length }, 'Re-enqueued overdue payout work');
    return total;
  }
}
