import { Module } from '@nestjs/common';
import { DashboardAccounts } from './accounts.service.js';
import { DashboardAuditLog } from './audit.service.js';
import { DashboardSessions } from './sessions.service.js';

/** Dashboard users, invites, sessions and audit: needs only the database (for the dashboard app and the operator CLI). */
@Module({
  providers: [DashboardAccounts, DashboardAuditLog, DashboardSessions],
  exports: [DashboardAccounts, DashboardAuditLog, DashboardSessions],
})
export class DashboardAccountsModule {}
