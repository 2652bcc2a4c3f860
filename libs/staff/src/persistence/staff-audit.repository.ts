import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { StaffAuditEvent, StaffAuditRecord } from '../model/audit.js';

interface StaffAuditRow {
  id: string;
  created_at: Date;
  actor: string;
  action: string;
  subject_type: string | null;
  subject_id: string | null;
  vendor_id: string | null;
  reason: string | null;
  proposal_id: string | null;
  approved_by: string | null;
  details: Record<string, unknown>;
  address: string | null;
}

const COLUMNS = `id::text, created_at, actor, action, subject_type, subject_id, vendor_id, reason, proposal_id, approved_by, details, address`;

function toRecord(row: StaffAuditRow): StaffAuditRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    actor: row.actor,
    action: row.action,
    subjectType: row.subject_type,
    subjectId: row.subject_id,
    vendorId: row.vendor_id,
    reason: row.reason,
    proposalId: row.proposal_id,
    approvedBy: row.approved_by,
    details: row.details,
    address: row.address,
  };
}

/** staff_audit_events: append-only (a trigger refuses UPDATE, DELETE and TRUNCATE). */
@Injectable()
export class StaffAuditRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: Pick<EntityManager, 'query'>, event: StaffAuditEvent): Promise<void> {
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

  /** The newest records first, optionally of one subject. */
  async list(filter: { subjectType?: string; subjectId?: string; limit?: number } = {}): Promise<StaffAuditRecord[]> {
    const rows: StaffAuditRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM staff_audit_events
        WHERE ($1::text IS NULL OR subject_type = $1) AND ($2::text IS NULL OR subject_id = $2)
        ORDER BY id DESC LIMIT $3`,
      [filter.subjectType ?? null, filter.subjectId ?? null, filter.limit ?? 200],
    );
    return rows.map(toRecord);
  }
}
