import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { readShape } from '#database';
import type { SettlementReportLine } from '#providers';
import type { LineResult, SettlementProvider } from '../settlement-provider.js';

/** A settlement line as stored, waiting to be matched (the matchers read it as stored). */
export interface StoredLine {
  id: string;
  providerReference: string;
  merchantReference: string;
  amountCents: string;
  currency: string;
  status: 'settled' | 'reversed';
  line: { status: string; amount: string; settled_at: string; reversed_at: string | null };
}

// Field names as the matchers read a line (its provider's own words).
const STORED_LINE = readShape<StoredLine>({
  id: 'id', providerReference: 'provider_reference', merchantReference: 'merchant_reference', amountCents: 'amount_cents::text', currency: 'currency', status: 'status', line: 'line',
});

export interface LineLinks {
  purchaseTransactionId?: string | null;
  payoutId?: string | null;
  /** The exception this line raised or joined, when its id is known. */
  exceptionId?: string | null;
  /** Else its dedupe key (so one raised earlier by a callback counts): the latest exception raised under it. */
  exceptionDedupeKey?: string | null;
}

/** A line of a fetched report with its content key (the hash of its canonical raw form). */
export interface KeyedReportLine {
  key: string;
  line: SettlementReportLine;
}

/** A line we had matched or applied that a re-issued report no longer holds. */
export interface WithdrawnLine {
  id: string;
  payoutId: string | null;
  purchaseTransactionId: string | null;
  vendorId: string | null;
  merchantReference: string;
  providerReference: string;
  matchResult: 'matched' | 'applied';
  line: StoredLine['line'];
}

/** One provider's report of a day with its lines counted by match result (`ops reconcile:report`). */
export interface ReportSummary {
  provider: string;
  fetchedAt: Date;
  reconciledAt: Date | null;
  lineCount: number;
  checksum: string;
  matched: number;
  applied: number;
  exception: number;
  unprocessed: number;
}

const REPORT_SUMMARY = readShape<ReportSummary>({
  provider: 'r.provider', fetchedAt: 'r.fetched_at', reconciledAt: 'r.reconciled_at', lineCount: 'r.line_count', checksum: 'r.checksum',
  matched: "count(l.id) FILTER (WHERE l.match_result = 'matched')::int",
  applied: "count(l.id) FILTER (WHERE l.match_result = 'applied')::int",
  exception: "count(l.id) FILTER (WHERE l.match_result = 'exception')::int",
  unprocessed: 'count(l.id) FILTER (WHERE l.id IS NOT NULL AND l.match_result IS NULL)::int',
});

/** Writes the line's result; only a line not yet matched changes, so a re-run cannot rewrite history. */
export async function markLine(manager: Pick<EntityManager, 'query'>, lineId: string, result: LineResult, links: LineLinks): Promise<LineResult> {
  await manager.query(
    `UPDATE settlement_lines SET match_result = $2, matched_at = now(), purchase_transaction_id = $3, payout_id = $4,
            exception_id = COALESCE($6::uuid, (SELECT id FROM reconciliation_exceptions WHERE dedupe_key = $5 OR starts_with(dedupe_key, $5 || '#')
                                                 ORDER BY raised_at DESC, id LIMIT 1))
      WHERE id = $1 AND match_result IS NULL`,
    [lineId, result, links.purchaseTransactionId ?? null, links.payoutId ?? null, links.exceptionDedupeKey ?? null, links.exceptionId ?? null],
  );
  return result;
}

/**
 * `settlement_reports` and `settlement_lines`: storing a fetched report, the lines still to
 * match, and the reads that find our records a report should name. The last two read the
 * domains' tables (purchase_transactions, payouts) for the settlement's own question, the
 * closed records of one day at one provider.
 */
@Injectable()
export class SettlementRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs `work` holding a session advisory lock named by provider and day, on a connection of
   * its own, so two workers (or the worker and the CLI) take turns on one report.
   */
  async withReportLock<T>(provider: SettlementProvider, day: string, work: () => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    const lockKey = `settlement:${provider}:${day}`;
    try {
      await runner.query(`SELECT pg_advisory_lock(hashtext($1))`, [lockKey]);
      return await work();
    } finally {
      await runner.query(`SELECT pg_advisory_unlock(hashtext($1))`, [lockKey]).catch(() => undefined);
      await runner.release();
    }
  }

  /**
   * Upserts the report row (unique per provider and day) and inserts the lines not stored before,
   * in one transaction. A re-issued report that no longer holds a line we matched or applied (and
   * holds no other line for its merchant reference: a line whose content changed is a new line,
   * matched on its own) marks it withdrawn and hands it to `onWithdrawn`, in the same transaction,
   * so the report's new checksum is never stored without the exception that says what it dropped.
   * A withdrawn line that comes back is no longer withdrawn.
   */
  async storeReport(
    provider: SettlementProvider,
    day: string,
    domain: 'purchase' | 'payout',
    checksum: string,
    lines: readonly KeyedReportLine[],
    onWithdrawn: (manager: EntityManager, withdrawn: WithdrawnLine[], previousChecksum: string | null) => Promise<void> = async () => undefined,
  ): Promise<{ reportId: string; newLines: number; withdrawn: number }> {
    return this.dataSource.transaction(async (manager: EntityManager) => {
      const [previous] = (await manager.query(`SELECT checksum FROM settlement_reports WHERE provider = $1 AND report_date = $2::date FOR UPDATE`, [provider, day])) as { checksum: string }[];
      const [{ id }] = (await manager.query(
        `INSERT INTO settlement_reports (provider, report_date, line_count, checksum) VALUES ($1, $2::date, $3, $4)
         ON CONFLICT (provider, report_date) DO UPDATE SET fetched_at = now(), line_count = EXCLUDED.line_count, checksum = EXCLUDED.checksum
         RETURNING id`,
        [provider, day, lines.length, checksum],
      )) as { id: string }[];
      let newLines = 0;
      for (const { line, key } of lines) {
        const rows = (await manager.query(
          `INSERT INTO settlement_lines (report_id, line_key, domain, provider_reference, merchant_reference, amount_cents, currency, status, line)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)
           ON CONFLICT (report_id, line_key) DO UPDATE SET withdrawn_at = NULL WHERE settlement_lines.withdrawn_at IS NOT NULL
           RETURNING (xmax = 0) AS inserted`,
          [id, key, domain, line.providerReference, line.merchantReference, line.amountCents.toString(), line.currency, line.status, JSON.stringify(line.raw)],
        )) as { inserted: boolean }[];
        newLines += rows.filter((row) => row.inserted).length;
      }
      const withdrawn = (await manager.query(
        `WITH withdrawn AS (
           UPDATE settlement_lines SET withdrawn_at = now()
            WHERE report_id = $1 AND withdrawn_at IS NULL AND match_result IN ('matched', 'applied')
              AND NOT (line_key = ANY($2::text[])) AND NOT (merchant_reference = ANY($3::text[]))
            RETURNING id, payout_id, purchase_transaction_id, merchant_reference, provider_reference, match_result, line)
         SELECT w.id::text AS id, w.payout_id AS "payoutId", w.purchase_transaction_id AS "purchaseTransactionId", COALESCE(p.vendor_id, t.vendor_id) AS "vendorId",
                w.merchant_reference AS "merchantReference", w.provider_reference AS "providerReference", w.match_result AS "matchResult", w.line
           FROM withdrawn w LEFT JOIN payouts p ON p.id = w.payout_id LEFT JOIN purchase_transactions t ON t.id = w.purchase_transaction_id
          ORDER BY w.id`,
        [id, lines.map(({ key }) => key), lines.map(({ line }) => line.merchantReference)],
      )) as WithdrawnLine[];
      if (withdrawn.length > 0) await onWithdrawn(manager, withdrawn, previous?.checksum ?? null);
      return { reportId: id, newLines, withdrawn: withdrawn.length };
    });
  }

  /**
   * Another line of the same status (settled, reversed) already matched or applied to the record:
   * the provider reported it twice. Null when this line is the first. Read in the caller's
   * transaction, after it locked the record.
   */
  async earlierLineFor(
    manager: Pick<EntityManager, 'query'>,
    record: { payoutId?: string; purchaseTransactionId?: string },
    line: Pick<StoredLine, 'id' | 'status'>,
  ): Promise<{ id: string; report_date: string; provider_reference: string; settled_at: string | null; result: string } | null> {
    const [earlier] = (await manager.query(
      `SELECT l.id::text AS id, to_char(r.report_date, 'YYYY-MM-DD') AS report_date, l.provider_reference, l.line->>'settled_at' AS settled_at, l.match_result AS result
         FROM settlement_lines l JOIN settlement_reports r ON r.id = l.report_id
        WHERE ($1::uuid IS NOT NULL AND l.payout_id = $1 OR $2::uuid IS NOT NULL AND l.purchase_transaction_id = $2)
          AND l.status = $3 AND l.id <> $4 AND l.match_result IN ('matched', 'applied')
        ORDER BY l.id LIMIT 1`,
      [record.payoutId ?? null, record.purchaseTransactionId ?? null, line.status, line.id],
    )) as { id: string; report_date: string; provider_reference: string; settled_at: string | null; result: string }[];
    return earlier ?? null;
  }

  /** The report's lines not matched yet, in the order they were stored. */
  async unmatchedLines(reportId: string): Promise<StoredLine[]> {
    return (await this.dataSource.query(`SELECT ${STORED_LINE.columns} FROM settlement_lines WHERE report_id = $1 AND match_result IS NULL ORDER BY id`, [reportId])) as StoredLine[];
  }

  async markReconciled(reportId: string): Promise<void> {
    await this.dataSource.query(`UPDATE settlement_reports SET reconciled_at = now() WHERE id = $1`, [reportId]);
  }

  /** Every provider's report of the day, with its lines counted by result. */
  async reportSummaries(day: string): Promise<ReportSummary[]> {
    return (await this.dataSource.query(
      `SELECT ${REPORT_SUMMARY.columns}
         FROM settlement_reports r LEFT JOIN settlement_lines l ON l.report_id = r.id
        WHERE r.report_date = $1::date GROUP BY r.id ORDER BY r.provider`,
      [day],
    )) as ReportSummary[];
  }
}
