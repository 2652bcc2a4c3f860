import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AuditEvent, DashboardAuditEntry } from './audit-event.js';
import { DashboardAuditRepository } from './persistence/dashboard-audit.repository.js';

/** The vendor's dashboard audit log for the pages: what they record, and the latest entries the team page lists. */
@Injectable()
export class DashboardAuditService {
  constructor(private readonly audit: DashboardAuditRepository) {}

  /** Appends the event; in the caller's transaction when given, so it commits with the change it describes. */
  record(event: AuditEvent, manager?: EntityManager): Promise<void> {
    return this.audit.record(event, manager);
  }

  /** The vendor's latest entries, newest first. */
  list(vendorId: string, limit?: number): Promise<DashboardAuditEntry[]> {
    return this.audit.list(vendorId, limit);
  }
}
