import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { readShape } from '#database';
import type { AuditEvent, DashboardAuditEntry } from '../audit-event.js';

const ENTRY = readShape<DashboardAuditEntry>({ actor: 'actor', action: 'action', subject: 'subject', details: 'details', address: 'address', createdAt: 'created_at' });

/** The dashboard's append-only audit log, dashboard_audit_events (a trigger refuses UPDATE, DELETE and TRUNCATE). */
@Injectable()
export class DashboardAuditRepository {
  constructor(private readonly dataSource: DataSource) {}

  async record(event: AuditEvent, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(
      `INSERT INTO dashboard_audit_events (vendor_id, actor_user_id, actor, action, subject, details, address) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [event.vendorId, event.actorUserId, event.actor, event.action, event.subject ?? null, JSON.stringify(event.details ?? {}), event.address ?? null],
    );
  }

  list(vendorId: string, limit = 200): Promise<DashboardAuditEntry[]> {
    return this.dataSource.query(`SELECT ${ENTRY.columns} FROM dashboard_audit_events WHERE vendor_id = $1 ORDER BY id DESC LIMIT $2`, [vendorId, limit]);
  }
}
