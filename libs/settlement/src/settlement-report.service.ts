import { Injectable } from '@nestjs/common';
import { parseIsoDay } from '#common';
import { ReconciliationExceptionsService, type ReconciliationException } from '#reconciliation';
import { SettlementCloseStatus } from './settlement-close-status.js';
import { SettlementRepository } from './persistence/settlement.repository.js';

/**
 * What `ops reconcile:report --date` prints: one day's reports, their lines by result, what staff
 * must look at, and every provider-day expected that date (a report never fetched shows there).
 */
@Injectable()
export class SettlementReportService {
  constructor(
    private readonly settlements: SettlementRepository,
    private readonly exceptions: ReconciliationExceptionsService,
    private readonly closeStatus: SettlementCloseStatus,
  ) {}

  async reportFor(rawDay: string) {
    const day = parseIsoDay(rawDay);
    const reports = await this.settlements.reportSummaries(day);
    const lines = { matched: 0, applied: 0, exception: 0, unprocessed: 0 };
    for (const report of reports) for (const result of Object.keys(lines) as (keyof typeof lines)[]) lines[result] += report[result];
    const raised = await this.exceptions.listForReportDate(day);
    const open = await this.exceptions.listOpen();
    return {
      report_date: day,
      reports: reports.map((report) => ({
        provider: report.provider,
        fetched_at: report.fetchedAt,
        reconciled_at: report.reconciledAt,
        line_count: report.lineCount,
        checksum: report.checksum,
        lines: { matched: report.matched, applied: report.applied, exception: report.exception, unprocessed: report.unprocessed },
      })),
      lines,
      days: await this.closeStatus.list({ day }),
      exceptions_by_kind: countBy(raised, (exception) => exception.kind),
      exceptions: raised.map(view),
      open_exceptions: { count: open.length, by_kind: countBy(open, (exception) => `${exception.domain}.${exception.kind}`), items: open.map(view) },
    };
  }
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

function view(exception: ReconciliationException) {
  return {
    id: exception.id,
    domain: exception.domain,
    kind: exception.kind,
    status: exception.status,
    dedupe_key: exception.dedupeKey,
    vendor_id: exception.vendorId,
    purchase_transaction_id: exception.purchaseTransactionId,
    payout_id: exception.payoutId,
    provider: exception.provider,
    report_date: exception.reportDate,
    raised_at: exception.raisedAt,
    details: exception.details,
    resolved_at: exception.resolvedAt,
    resolved_by: exception.resolvedBy,
    resolution: exception.resolution,
  };
}
