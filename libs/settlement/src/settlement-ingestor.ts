import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { johannesburgDayOf, johannesburgDayRange, parseIsoDay } from '#common';
import { GatewayEnv } from '#config';
import { PAYOUT_METHODS, PayoutSettlementService, methodDefinition } from '#payout';
import { PayoutProviderClient, PurchaseProviderClient, type ClosedWithoutLine, type SettlementReport } from '#providers';
import { PurchaseSettlementService } from '#purchase';
import { ReconciliationExceptionsService, type RaiseReconciliationException } from '#reconciliation';
import { PayoutLineMatcher } from './payout-line-matcher.js';
import { PurchaseLineMatcher } from './purchase-line-matcher.js';
import { SettlementClock } from './settlement-clock.js';
import { SettlementMetrics } from './settlement-metrics.js';
import { domainOf, SETTLEMENT_PROVIDERS, type LineResult, type SettlementProvider } from './settlement-provider.js';
import { SettlementDaysRepository, type ExpectedDay } from './persistence/settlement-days.repository.js';
import { SettlementRepository, type WithdrawnLine } from './persistence/settlement.repository.js';
import { lineDedupeKey } from './stored-line.js';

export interface IngestSummary {
  provider: SettlementProvider;
  report_date: string;
  lines: number;
  /** Lines not seen in an earlier ingestion of the same report. */
  new_lines: number;
  /** Results of the lines matched by this run (a re-run matches none). */
  results: Record<LineResult, number>;
  /** Records of ours missing from the report, raised by this run (only once the day is over). */
  missing_lines_raised: number;
  /** Lines matched or applied earlier that this (re-issued) report no longer holds: one `line_withdrawn` exception each. */
  withdrawn_lines: number;
  /** False while the report's Johannesburg day is still running: no line can be called missing yet. */
  day_complete: boolean;
}

export type IngestOutcome = IngestSummary | { provider: SettlementProvider; report_date: string; error: string };

/**
 * Fetches a provider's settlement report for one Johannesburg day, stores it, matches every
 * line not matched before, then (for a finished day) raises `missing_line` for our records
 * closed that day that no line names. Everything is idempotent: the report row is unique per
 * provider and day, lines per content hash, exceptions per dedupe key, and each move goes
 * through the guarded domain paths. A session advisory lock per provider and day makes two
 * workers (or the worker and the CLI) take turns rather than match the same line twice.
 * Every attempt is recorded on the provider-day (`settlement_days`): a failure with its error, a
 * finished day's report as fetched.
 */
@Injectable()
export class SettlementIngestor {
  private readonly logger = new Logger(SettlementIngestor.name);

  constructor(
    private readonly settlements: SettlementRepository,
    private readonly purchaseProvider: PurchaseProviderClient,
    private readonly payoutProvider: PayoutProviderClient,
    private readonly purchaseLines: PurchaseLineMatcher,
    private readonly payoutLines: PayoutLineMatcher,
    private readonly exceptions: ReconciliationExceptionsService,
    private readonly metrics: SettlementMetrics,
    private readonly purchases: PurchaseSettlementService,
    private readonly payouts: PayoutSettlementService,
    private readonly days: SettlementDaysRepository,
    private readonly clock: SettlementClock,
    private readonly config: GatewayEnv,
  ) {}

  /** The provider-day as the schedule expects it: its report is due SETTLEMENT_REPORT_DEADLINE_MS after the day ends. */
  expected(provider: SettlementProvider, day: string): ExpectedDay {
    return { provider, day, deadlineAt: new Date(johannesburgDayRange(day).endExclusive.getTime() + this.config.SETTLEMENT_REPORT_DEADLINE_MS) };
  }

  /** Every provider (or the given ones) for one day; a provider that fails is reported, the others still run. */
  async ingestDay(day: string, providers: readonly SettlementProvider[] = SETTLEMENT_PROVIDERS): Promise<IngestOutcome[]> {
    const outcomes: IngestOutcome[] = [];
    for (const provider of providers) {
      try {
        outcomes.push(await this.ingest(provider, day));
      } catch (error) {
        this.logger.warn({ provider, day, err: (error as Error).message }, 'Settlement report ingestion failed');
        // Only a real calendar day is a provider-day (a malformed one fails before any fetch).
        if (isIsoDay(day)) await this.days.recordFailure(this.expected(provider, day), (error as Error).message).catch(() => undefined);
        outcomes.push({ provider, report_date: day, error: (error as Error).message });
      }
    }
    return outcomes;
  }

  async ingest(provider: SettlementProvider, rawDay: string): Promise<IngestSummary> {
    const day = parseIsoDay(rawDay);
    const report = await this.fetch(provider, day);
    return this.settlements.withReportLock(provider, day, async () => {
      const { reportId, newLines, withdrawn } = await this.store(provider, day, report);
      const results: Record<LineResult, number> = { matched: 0, applied: 0, exception: 0 };
      const pending = await this.settlements.unmatchedLines(reportId);
      const context = { reportId, reportDate: day, provider };
      for (const line of pending) {
        const result = domainOf(provider) === 'purchase' ? await this.purchaseLines.match(context, line) : await this.payoutLines.match(context, line);
        results[result] += 1;
        this.metrics.countLine(provider, result);
      }
      // Today's report is still growing: a record closed an hour ago may simply not be on it yet.
      const dayComplete = day < johannesburgDayOf(this.clock.now());
      const missing = dayComplete ? await this.raiseMissingLines(provider, day, reportId) : 0;
      await this.settlements.markReconciled(reportId);
      // Only a finished day's report is final: today's is matched, but the day still expects its report.
      if (dayComplete) await this.days.recordFetched(this.expected(provider, day));
      const summary: IngestSummary = { provider, report_date: day, lines: report.lines.length, new_lines: newLines, results, missing_lines_raised: missing, withdrawn_lines: withdrawn, day_complete: dayComplete };
      this.logger.log(summary, 'Settlement report reconciled');
      return summary;
    });
  }

  private fetch(provider: SettlementProvider, day: string): Promise<SettlementReport> {
    return provider === 'dvs' ? this.purchaseProvider.getSettlementReport(day) : this.payoutProvider.getSettlementReport(provider, day);
  }

  private async store(provider: SettlementProvider, day: string, report: SettlementReport): Promise<{ reportId: string; newLines: number; withdrawn: number }> {
    const keyed = report.lines.map((line) => ({ line, key: sha256(canonicalJson(line.raw)) }));
    const checksum = sha256(keyed.map(({ key }) => key).join('\n'));
    const domain = domainOf(provider);
    // A re-issued report never silently overwrites what we applied: each dropped line is an exception.
    const raiseWithdrawn = async (manager: EntityManager, lines: WithdrawnLine[], previousChecksum: string | null) => {
      for (const line of lines) {
        await this.exceptions.raise(
          {
            domain,
            kind: 'line_withdrawn',
            dedupeKey: lineDedupeKey(line, 'line_withdrawn'),
            vendorId: line.vendorId,
            payoutId: line.payoutId,
            purchaseTransactionId: line.purchaseTransactionId,
            provider,
            reportDate: day,
            details: {
              settlement_line_id: line.id,
              merchant_reference: line.merchantReference,
              provider_reference: line.providerReference,
              provider_status: line.line.status,
              provider_amount: line.line.amount,
              settled_at: line.line.settled_at,
              our_result: line.matchResult,
              previous_checksum: previousChecksum,
              checksum,
            },
          },
          manager,
        );
      }
    };
    return this.settlements.storeReport(provider, day, domain, checksum, keyed, raiseWithdrawn);
  }

  /** Our records closed (settled or reversed) on the day at this provider that no line of its report names. */
  private async raiseMissingLines(provider: SettlementProvider, day: string, reportId: string): Promise<number> {
    const { start, endExclusive } = johannesburgDayRange(day);
    const missing: readonly ClosedWithoutLine[] =
      provider === 'dvs'
        ? await this.purchases.closedWithoutSettlementLine(reportId, start, endExclusive)
        : await this.payouts.closedWithoutSettlementLine(reportId, start, endExclusive, PAYOUT_METHODS.filter((method) => methodDefinition(method).channel === provider));
    let raised = 0;
    const domain = domainOf(provider);
    for (const record of missing) {
      const exception: RaiseReconciliationException = {
        domain,
        kind: 'missing_line',
        dedupeKey: `${domain}:${record.id}:missing_line:${day}`,
        vendorId: record.vendorId,
        purchaseTransactionId: domain === 'purchase' ? record.id : null,
        payoutId: domain === 'payout' ? record.id : null,
        provider,
        reportDate: day,
        details: { our_status: record.status, our_amount_cents: record.amountCents, provider_reference: record.providerReference },
      };
      if (await this.exceptions.raise(exception)) raised += 1;
    }
    return raised;
  }
}

function isIsoDay(day: string): boolean {
  try {
    parseIsoDay(day);
    return true;
  } catch {
    return false;
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Key order must not make the same line look new. */
function canonicalJson(value: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}
