import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
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
}
