import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { readShape, updateReturning } from '#database';
import type { RaiseReconciliationException, ReconciliationException } from '../reconciliation-exception.js';

const EXCEPTION = readShape<ReconciliationException>({
  id: 'id', domain: 'domain', kind: 'kind', dedupeKey: 'dedupe_key', vendorId: 'vendor_id', purchaseTransactionId: 'purchase_transaction_id',
  payoutId: 'payout_id', provider: 'provider', reportDate: "to_char(report_date, 'YYYY-MM-DD')", details: 'details', status: 'status',
  raisedAt: 'raised_at', resolvedAt: 'resolved_at', resolvedBy: 'resolved_by', resolution: 'resolution',
});

/**
 * The one place that reads and writes `reconciliation_exceptions`. Raising is idempotent on the
 * dedupe key, and takes the caller's transaction so an exception is recorded together with the
 * evidence that led to it (or not at all).
 */
@Injectable()
export class ReconciliationExceptionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records the exception unless an open one with the same dedupe key exists (then it joins it).
   * Returns true when it is new.
   */
  async raise(exception: RaiseReconciliationException, manager: Pick<EntityManager, 'query'> = this.dataSource.manager): Promise<boolean> {
    return (await this.raiseAndName(exception, manager)).raised;
  }

  /**
   * raise, answering the exception's id and key too, for what must name it in the same
   * transaction (a settlement line, a ledger correction). A resolved exception never swallows a
   * later observation: when the key's exception is resolved, the observation is raised again as
   * `<key>#2` (then `#3`, ...), and joins that one while it stays open. Keys that name one
   * observation (a report line) never repeat, so for them this is simply once.
   */
  async raiseAndName(
    exception: RaiseReconciliationException,
    manager: Pick<EntityManager, 'query'> = this.dataSource.manager,
  ): Promise<{ id: string; raised: boolean; dedupeKey: string }> {
    for (let round = 1; ; round += 1) {
      const dedupeKey = round === 1 ? exception.dedupeKey : `${exception.dedupeKey}#${round}`;
      const found = await this.insertOrFind({ ...exception, dedupeKey }, manager);
      if (found.raised || found.status === 'open') return { id: found.id, raised: found.raised, dedupeKey };
    }
  }

  private async insertOrFind(exception: RaiseReconciliationException, manager: Pick<EntityManager, 'query'>): Promise<{ id: string; raised: boolean; status: string }> {
    const rows = (await manager.query(
      `WITH raised AS (
         INSERT INTO reconciliation_exceptions (domain, kind, dedupe_key, vendor_id, purchase_transaction_id, payout_id, provider, report_date, details)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::date, $9::jsonb)
         ON CONFLICT (dedupe_key) DO NOTHING RETURNING id)
       SELECT id, true AS raised, 'open' AS status FROM raised
       UNION ALL SELECT id, false, status FROM reconciliation_exceptions WHERE dedupe_key = $3 AND NOT EXISTS (SELECT 1 FROM raised)`,
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
    )) as { id: string; raised: boolean; status: string }[];
    if (rows.length > 0) return rows[0];
    // A concurrent raise of the same key committed while this statement waited: its snapshot predates that row.
    const [existing] = (await manager.query(`SELECT id, status FROM reconciliation_exceptions WHERE dedupe_key = $1`, [exception.dedupeKey])) as { id: string; status: string }[];
    return { ...existing, raised: false };
  }

  /** Open exceptions, oldest first. */
  listOpen(limit = 500): Promise<ReconciliationException[]> {
    return this.dataSource.query(
      `SELECT ${EXCEPTION.columns} FROM reconciliation_exceptions WHERE status = 'open' ORDER BY raised_at, id LIMIT $1`,
      [limit],
    );
  }

  /** Every exception raised from one day's settlement reports, or about records of that day. */
  listForReportDate(reportDate: string): Promise<ReconciliationException[]> {
    return this.dataSource.query(
      `SELECT ${EXCEPTION.columns} FROM reconciliation_exceptions WHERE report_date = $1::date ORDER BY raised_at, id`,
      [reportDate],
    );
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
