import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export interface AuditEvent {
  vendorId: string;
  /** The dashboard user, or null for staff actions through the operator CLI. */
  actorUserId: string | null;
  /** Human-readable actor (the user's email, or `ops`), kept even if the user is later removed. */
  actor: string;
  action: string;
  subject?: string | null;
  /** Never a secret: callers pass ids, names, roles and abilities only. */
  details?: Record<string, unknown>;
  address?: string | null;
}

export interface AuditRow {
  actor: string;
  action: string;
  subject: string | null;
  details: Record<string, unknown>;
  address: string | null;
  created_at: Date;
}

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

  list(vendorId: string, limit = 200): Promise<AuditRow[]> {
    return this.dataSource.query(
      `SELECT actor, action, subject, details, address, created_at FROM dashboard_audit_events WHERE vendor_id = $1 ORDER BY id DESC LIMIT $2`,
      [vendorId, limit],
    );
  }
}
