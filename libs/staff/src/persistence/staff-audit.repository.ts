import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { johannesburgDayRange, likeEscaped } from '#common';
import { readShape } from '#database';
import type { StaffAuditEvent, StaffAuditRecord } from '../model/audit.js';

const AUDIT_RECORD = readShape<StaffAuditRecord>({
  id: 'id::text', createdAt: 'created_at', actor: 'actor', action: 'action', subjectType: 'subject_type', subjectId: 'subject_id',
  vendorId: 'vendor_id', reason: 'reason', proposalId: 'proposal_id', approvedBy: 'approved_by', details: 'details', address: 'address',
});

/**
 * The staff audit trail (staff_audit_events): every staff decision, written in the transaction of
 * the change it records. Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE.
 */
@Injectable()
export class StaffAuditLog {
  constructor(private readonly dataSource: DataSource) {}

  async record(event: StaffAuditEvent, manager: Pick<EntityManager, 'query'> = this.dataSource.manager): Promise<void> {
    await manager.query(
      `INSERT INTO staff_audit_events (actor_staff_id, actor, action, subject_type, subject_id, vendor_id, reason, proposal_id, approved_by_staff_id, approved_by, details, address)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        event.actor.staffUserId,
        event.actor.label,
        event.action,
        event.subjectType ?? null,
        event.subjectId ?? null,
        event.vendorId ?? null,
        event.reason ?? null,
        event.proposalId ?? null,
        event.approvedBy?.staffUserId ?? null,
        event.approvedBy?.label ?? null,
        JSON.stringify(event.details ?? {}),
        event.actor.address ?? null,
      ],
    );
  }

  /**
   * The newest records first, optionally of one subject. The ORDER BY names the table's column: a
   * bare `id` would be the text alias of the SELECT list and sort "9" before "10".
   */
  list(filter: { subjectType?: string; subjectId?: string; limit?: number } = {}): Promise<StaffAuditRecord[]> {
    return this.dataSource.query(
      `SELECT ${AUDIT_RECORD.columns} FROM staff_audit_events
        WHERE ($1::text IS NULL OR subject_type = $1) AND ($2::text IS NULL OR subject_id = $2)
        ORDER BY staff_audit_events.id DESC LIMIT $3`,
      [filter.subjectType ?? null, filter.subjectId ?? null, filter.limit ?? 200],
    );
  }

  /** One numbered page of the records the filter selects, newest first, with how many it selects in all (`/audit`). */
  async page(filter: StaffAuditFilter, page: number, perPage: number): Promise<{ records: StaffAuditRecord[]; total: number }> {
    const { where, parameters } = auditWhere(filter);
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total FROM staff_audit_events WHERE ${where}`, parameters)) as { total: number }[];
    const records: StaffAuditRecord[] = await this.dataSource.query(
      `SELECT ${AUDIT_RECORD.columns} FROM staff_audit_events WHERE ${where}
        ORDER BY staff_audit_events.id DESC LIMIT $${parameters.length + 1} OFFSET $${parameters.length + 2}`,
      [...parameters, perPage, (page - 1) * perPage],
    );
    return { records, total };
  }

  /**
   * Every record the filter selects, newest first, `batchSize` at a time by keyset on the id (an
   * export: memory stays flat, and records written meanwhile do not shift the pages).
   */
  async *batches(filter: StaffAuditFilter, batchSize = 1_000): AsyncGenerator<StaffAuditRecord[]> {
    const { where, parameters } = auditWhere(filter);
    let beforeId: string | null = null;
    for (;;) {
      const records: StaffAuditRecord[] = await this.dataSource.query(
        `SELECT ${AUDIT_RECORD.columns} FROM staff_audit_events
          WHERE ${where} AND ($${parameters.length + 1}::bigint IS NULL OR staff_audit_events.id < $${parameters.length + 1}::bigint)
          ORDER BY staff_audit_events.id DESC LIMIT $${parameters.length + 2}`,
        [...parameters, beforeId, batchSize],
      );
      if (records.length === 0) return;
      yield records;
      beforeId = records[records.length - 1].id;
    }
  }

  /** Every action the trail holds, for the filter's choices. */
  async actions(): Promise<string[]> {
    const rows: { action: string }[] = await this.dataSource.query(`SELECT DISTINCT action FROM staff_audit_events ORDER BY action`);
    return rows.map((row) => row.action);
  }
}

/** What `/audit` filters on; every member optional. */
export interface StaffAuditFilter {
  subjectType?: string;
  subjectId?: string;
  /** A part of the actor (an email, `ops:<user>`), any case. */
  actor?: string;
  action?: string;
  /** The vendor's records: those naming it as their vendor or as their subject. */
  vendorId?: string;
  /** Whole Africa/Johannesburg days, both included. */
  dateFrom?: string;
  dateTo?: string;
}

/** The filter as a parameterised WHERE clause (`$1`…`$8`): no value is ever spliced into the SQL. */
function auditWhere(filter: StaffAuditFilter): { where: string; parameters: unknown[] } {
  return {
    where: `($1::text IS NULL OR subject_type = $1) AND ($2::text IS NULL OR subject_id = $2)
        AND ($3::text IS NULL OR actor ILIKE $3) AND ($4::text IS NULL OR action = $4)
        AND ($5::uuid IS NULL OR vendor_id = $5 OR (subject_type = 'vendor' AND subject_id = $6))
        AND ($7::timestamptz IS NULL OR created_at >= $7) AND ($8::timestamptz IS NULL OR created_at < $8)`,
    parameters: [
      filter.subjectType ?? null,
      filter.subjectId ?? null,
      filter.actor ? `%${likeEscaped(filter.actor)}%` : null,
      filter.action ?? null,
      filter.vendorId ?? null,
      filter.vendorId ?? null,
      filter.dateFrom ? johannesburgDayRange(filter.dateFrom).start : null,
      filter.dateTo ? johannesburgDayRange(filter.dateTo).endExclusive : null,
    ],
  };
}
