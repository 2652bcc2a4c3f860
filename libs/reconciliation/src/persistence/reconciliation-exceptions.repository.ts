import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { updateReturning } from '#database';
import type { RaiseReconciliationException, ReconciliationException } from '../reconciliation-exception.js';

interface ReconciliationExceptionRow {
  id: string;
  domain: ReconciliationException['domain'];
  kind: ReconciliationException['kind'];
  dedupe_key: string;
  vendor_id: string | null;
  purchase_transaction_id: string | null;
  payout_id: string | null;
  provider: string | null;
  report_date: string | null;
  details: Record<string, unknown>;
  status: ReconciliationException['status'];
  raised_at: Date;
  resolved_at: Date | null;
  resolved_by: string | null;
  resolution: string | null;
}

const COLUMNS = `id, domain, kind, dedupe_key, vendor_id, purchase_transaction_id, payout_id, provider,
  to_char(report_date, 'YYYY-MM-DD') AS report_date, details, status, raised_at, resolved_at, resolved_by, resolution`;

function exceptionOf(row: ReconciliationExceptionRow): ReconciliationException {
  return {
    id: row.id,
    domain: row.domain,
    kind: row.kind,
    dedupeKey: row.dedupe_key,
    vendorId: row.vendor_id,
    purchaseTransactionId: row.purchase_transaction_id,
    payoutId: row.payout_id,
    provider: row.provider,
    reportDate: row.report_date,
    details: row.details,
    status: row.status,
    raisedAt: row.raised_at,
    resolvedAt: row.resolved_at,
    resolvedBy: row.resolved_by,
    resolution: row.resolution,
  };
}

/**
 * The one place that reads and writes `reconciliation_exceptions`. Raising is idempotent on the
 * dedupe key, and takes the caller's transaction so an exception is recorded together with the
 * evidence that led to it (or not at all).
 */
@Injectable()
export class ReconciliationExceptionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records the exception unless one with the same dedupe key exists. Returns true when it is new. */
  async raise(exception: RaiseReconciliationException, manager: Pick<EntityManager, 'query'> = this.dataSource.manager): Promise<boolean> {
    const rows = (await manager.query(
      `INSERT INTO reconciliation_exceptions (domain, kind, dedupe_key, vendor_id, purchase_transaction_id, payout_id, provider, report_date, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::date, $9::jsonb)
       ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`,
      [
        exception.domain,
        exception.kind,
        exception.dedupeKey,
        exception.vendorId ?? null,
        exception.purchaseTransactionId ?? null,
        exception.payoutId ?? null,
        exception.provider ?? null,
        exception.reportDate ?? null,
        JSON.stringify(exception.details ?? {}),
      ],
    )) as { id: string }[];
    return rows.length > 0;
  }

  async findByDedupeKey(dedupeKey: string): Promise<ReconciliationException | null> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM reconciliation_exceptions WHERE dedupe_key = $1`, [dedupeKey])) as ReconciliationExceptionRow[];
    return rows.length > 0 ? exceptionOf(rows[0]) : null;
  }

  /** Open exceptions, oldest first. */
  async listOpen(limit = 500): Promise<ReconciliationException[]> {
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM reconciliation_exceptions WHERE status = 'open' ORDER BY raised_at, id LIMIT $1`,
      [limit],
    )) as ReconciliationExceptionRow[];
    return rows.map(exceptionOf);
  }

  /** Every exception raised from one day's settlement reports, or about records of that day. */
  async listForReportDate(reportDate: string): Promise<ReconciliationException[]> {
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM reconciliation_exceptions WHERE report_date = $1::date ORDER BY raised_at, id`,
      [reportDate],
    )) as ReconciliationExceptionRow[];
    return rows.map(exceptionOf);
  }

  /** Counts and age of the oldest open exception per domain and kind, for metrics. */
  async openSummary(): Promise<{ domain: string; kind: string; open: number; oldestAgeSeconds: number }[]> {
    const rows = (await this.dataSource.query(
      `SELECT domain, kind, count(*)::int AS open, floor(extract(epoch FROM now() - min(raised_at)))::int AS oldest_age_seconds
         FROM reconciliation_exceptions WHERE status = 'open' GROUP BY domain, kind`,
    )) as { domain: string; kind: string; open: number; oldest_age_seconds: number }[];
    return rows.map((row) => ({ domain: row.domain, kind: row.kind, open: row.open, oldestAgeSeconds: row.oldest_age_seconds }));
  }

  /** Staff close an exception with what they did about it. Returns false if it was not open. */
  async resolve(id: string, resolvedBy: string, resolution: string): Promise<boolean> {
    const resolved = await updateReturning<{ id: string }>(
      this.dataSource,
      `UPDATE reconciliation_exceptions SET status = 'resolved', resolved_at = now(), resolved_by = $2, resolution = $3
        WHERE id = $1 AND status = 'open' RETURNING id`,
      [id, resolvedBy, resolution],
    );
    return resolved.length > 0;
  }
}
