import { Injectable, Logger, Optional } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { MetricsService } from '#observability';
import { RECONCILIATION_EXCEPTION_KINDS, ReconciliationExceptionsService } from '#reconciliation';
import { SETTLEMENT_PROVIDERS, type LineResult, type SettlementProvider } from './settlement-provider.js';
import { SettlementDaysRepository } from './persistence/settlement-days.repository.js';

const DOMAINS = ['purchase', 'payout'] as const;

/**
 * Reconciliation metrics on the process's registry: settlement lines by result (counted as they
 * are matched), and open exceptions by domain and kind with the age of the oldest, read from
 * PostgreSQL at scrape time so every replica reports the same truth. Without a MetricsService
 * (the ops CLI) it records nothing.
 */
@Injectable()
export class SettlementMetrics {
  private readonly logger = new Logger(SettlementMetrics.name);
  private readonly lines?: Counter<'provider' | 'result'>;
  private readonly missingReports?: Counter<'provider'>;

  constructor(exceptions: ReconciliationExceptionsService, days: SettlementDaysRepository, @Optional() metrics?: MetricsService) {
    if (!metrics) return;
    const registers = [metrics.registry];
    this.lines = new Counter({ name: 'settlement_lines_total', help: 'Settlement report lines matched, by provider and result (matched, applied, exception)', labelNames: ['provider', 'result'] as const, registers });
    this.missingReports = new Counter({ name: 'settlement_reports_missing_total', help: 'Settlement reports not fetched by their deadline (one missing_report exception each), by provider', labelNames: ['provider'] as const, registers });
    const missingNow = new Gauge({
      name: 'settlement_reports_missing',
      help: 'Provider-days whose settlement report is past its deadline and still not fetched, by provider (read from PostgreSQL at scrape time)',
      labelNames: ['provider'] as const,
      registers,
      collect: async () => {
        try {
          const rows = await days.missingByProvider();
          for (const provider of SETTLEMENT_PROVIDERS) missingNow.set({ provider }, rows.find((row) => row.provider === provider)?.missing ?? 0);
        } catch (error) {
          this.logger.warn({ err: (error as Error).message }, 'Could not read missing settlement reports');
        }
      },
    });
    // Both gauges come from one query per scrape: whichever collects first starts it, the other waits for it.
    let pending: Promise<void> | undefined;
    const collect = () => (pending ??= refresh().finally(() => setImmediate(() => (pending = undefined))));
    const open = new Gauge({ name: 'reconciliation_exceptions_open', help: 'Open reconciliation exceptions by domain and kind', labelNames: ['domain', 'kind'] as const, registers, collect });
    const oldest = new Gauge({ name: 'reconciliation_exception_oldest_open_age_seconds', help: 'Age of the oldest open reconciliation exception, by domain (0 when none)', labelNames: ['domain'] as const, registers, collect });
    const refresh = async () => {
      try {
        const summary = await exceptions.openSummary();
        for (const domain of DOMAINS) {
          oldest.set({ domain }, Math.max(0, ...summary.filter((row) => row.domain === domain).map((row) => row.oldestAgeSeconds)));
          for (const kind of RECONCILIATION_EXCEPTION_KINDS) open.set({ domain, kind }, summary.find((row) => row.domain === domain && row.kind === kind)?.open ?? 0);
        }
      } catch (error) {
        // A scrape must not fail because PostgreSQL is briefly away; the last values stay.
        this.logger.warn({ err: (error as Error).message }, 'Could not read open reconciliation exceptions');
      }
    };
  }

  countLine(provider: SettlementProvider, result: LineResult): void {
    this.lines?.inc({ provider, result });
  }

  countMissingReport(provider: SettlementProvider): void {
    this.missingReports?.inc({ provider });
  }
}
