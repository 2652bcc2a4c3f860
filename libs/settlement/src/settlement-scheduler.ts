import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { johannesburgDayOf } from '#common';
import { GatewayEnv } from '#config';
import { SettlementIngestor } from './settlement-ingestor.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Ingests the settlement reports of the last SETTLEMENT_LOOKBACK_DAYS finished days, every
 * SETTLEMENT_INGEST_INTERVAL_MS, on ticks aligned to multiples of the interval so a restart
 * does not push the next run back. Re-ingesting is idempotent, so replicas ticking together
 * only take turns (advisory lock) and the later ones find nothing new.
 */
@Injectable()
export class SettlementScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SettlementScheduler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly ingestor: SettlementIngestor,
    private readonly config: GatewayEnv,
  ) {}

  onApplicationBootstrap(): void {
    const interval = this.config.SETTLEMENT_INGEST_INTERVAL_MS;
    if (interval === 0) return;
    const schedule = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.running ??= this.runOnce()
          .catch((error: Error) => this.logger.warn({ err: error.message }, 'Settlement ingestion failed'))
          .finally(() => (this.running = undefined));
        schedule();
      }, interval - (Date.now() % interval));
      this.timer.unref();
    };
    schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** The finished days the schedule covers, oldest first. */
  daysToIngest(now = new Date()): string[] {
    return Array.from({ length: this.config.SETTLEMENT_LOOKBACK_DAYS }, (_, index) => johannesburgDayOf(new Date(now.getTime() - (this.config.SETTLEMENT_LOOKBACK_DAYS - index) * DAY_MS)));
  }

  async runOnce(): Promise<void> {
    for (const day of this.daysToIngest()) {
      if (this.stopped) return;
      await this.ingestor.ingestDay(day);
    }
  }
}
