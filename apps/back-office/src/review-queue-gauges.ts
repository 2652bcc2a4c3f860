import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { MetricsService } from '#observability';
import { ReviewQueues, type QueueDepths } from '#staff';

const GAUGES = [
  { name: 'review_queue_items', help: 'Items waiting in a staff review queue (purchases in review, payouts in needs_review)', figure: 'count' },
  { name: 'review_queue_oldest_age_seconds', help: 'Seconds the oldest item of a staff review queue has waited (0 when empty)', figure: 'oldestAgeSeconds' },
] as const;

/** Both gauges of one scrape share one read. */
const FRESH_FOR_MS = 1_000;

/**
 * The review queues for alerting (docs/DEPLOY.md has the example rule): items waiting and the
 * age of the oldest, per queue, read from PostgreSQL at each scrape of this app's /metrics.
 * When the read fails the last values stay, so a database blip does not fail the whole scrape.
 */
@Injectable()
export class ReviewQueueGauges implements OnModuleInit {
  private readonly logger = new Logger(ReviewQueueGauges.name);
  private last: { at: number; depths: Promise<QueueDepths> } | null = null;

  constructor(
    private readonly metrics: MetricsService,
    private readonly queues: ReviewQueues,
  ) {}

  onModuleInit(): void {
    const read = () => this.read();
    for (const { name, help, figure } of GAUGES) {
      new Gauge({
        name,
        help,
        labelNames: ['queue'] as const,
        registers: [this.metrics.registry],
        async collect() {
          const depths = await read();
          if (!depths) return;
          for (const queue of ['purchases', 'payouts'] as const) this.set({ queue }, depths[queue][figure]);
        },
      });
    }
  }

  private async read(): Promise<QueueDepths | null> {
    if (!this.last || Date.now() - this.last.at > FRESH_FOR_MS) this.last = { at: Date.now(), depths: this.queues.depths() };
    try {
      return await this.last.depths;
    } catch (error) {
      this.last = null;
      this.logger.warn({ err: (error as Error).message }, 'Review queue depths unavailable; metrics keep their last values');
      return null;
    }
  }
}
