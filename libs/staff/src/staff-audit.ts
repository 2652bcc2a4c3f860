import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { StaffAuditEvent, StaffAuditRecord } from './model/audit.js';
import { StaffAuditRepository } from './persistence/staff-audit.repository.js';

/** The staff audit trail: every staff decision, written in the transaction of the change it records. */
@Injectable()
export class StaffAuditLog {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: StaffAuditRepository,
  ) {}

  record(event: StaffAuditEvent, manager: Pick<EntityManager, 'query'> = this.dataSource.manager): Promise<void> {
    return this.repository.insert(manager, event);
  }

  list(filter: { subjectType?: string; subjectId?: string; limit?: number } = {}): Promise<StaffAuditRecord[]> {
    return this.repository.list(filter);
  }
}
