import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { johannesburgDayOf } from '#common';
import { GatewayEnv } from '#config';
import { ReconciliationExceptionsService } from '#reconciliation';
import { SettlementClock } from './settlement-clock.js';
import { SettlementDayCloser } from './settlement-day-closer.js';
import { SettlementIngestor } from './settlement-ingestor.js';
import { SettlementMetrics } from './settlement-metrics.js';
import { domainOf, SETTLEMENT_PROVIDERS, type SettlementProvider } from './settlement-provider.js';
import { SettlementDaysRepository } from './persistence/settlement-days.repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Ingests the settlement reports of the last SETTLEMENT_LOOKBACK_DAYS finished days, every
 * SETTLEMENT_INGEST_INTERVAL_MS, on ticks aligned to multiples of the interval so a restart
 * does not push the next run back. Re-ingesting is idempotent, so replicas ticking together
 * only take turns (advisory lock) and the later ones find nothing new.
 *
 * Each tick also records those days as expected (`settlement_days`), asks again for every
 * recorded day whose report never arrived however old, raises `missing_report` once for each
 * past its deadline, and then tries to close every fetched day (docs/RECONCILIATION.md, "Closing a day").
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
    private readonly days: SettlementDaysRepository,
    private readonly closer: SettlementDayCloser,
    private readonly exceptions: ReconciliationExceptionsService,
    private readonly metrics: SettlementMetrics,
    private readonly clock: SettlementClock,
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
    const now = this.clock.now();
    const lookback = this.daysToIngest(now);
    await this.days.expect(lookback.flatMap((day) => SETTLEMENT_PROVIDERS.map((provider) => this.ingestor.expected(provider, day))));
    // Days behind the look-back whose report never came: asked for again, one provider-day at a time.
    const behind = new Map<string, SettlementProvider[]>();
    for (const { provider, day } of await this.days.unfetchedBefore(lookback[0])) behind.set(day, [...(behind.get(day) ?? []), provider]);
    for (const [day, providers] of [...behind, ...lookback.map((day) => [day, SETTLEMENT_PROVIDERS] as const)]) {
      if (this.stopped) return;
      await this.ingestor.ingestDay(day, providers);
    }
    await this.raiseMissingReports(now);
    if (this.stopped) return;
    await this.closer.closeReady();
  }

  /** Each expected day still without its report at its deadline: one `missing_report` exception, counted. */
  private async raiseMissingReports(now: Date): Promise<void> {
    const raised: SettlementProvider[] = [];
    await this.days.markOverdue(now, async (manager, day) => {
      const exception = await this.exceptions.raiseAndName(
        {
          domain: domainOf(day.provider),
          kind: 'missing_report',
          dedupeKey: `settlement_day:${day.provider}:${day.day}:missing_report`,
          provider: day.provider,
          reportDate: day.day,
          details: { deadline_at: new Date(day.deadline_at).toISOString(), attempts: day.attempts, last_error: day.last_error },
        },
        manager,
      );
      raised.push(day.provider);
      return exception.id;
    });
    // Counted once the exceptions are committed.
    for (const provider of raised) this.metrics.countMissingReport(provider);
    if (raised.length > 0) this.logger.warn({ providers: raised }, 'Settlement reports missing past their deadline');
  }
}
