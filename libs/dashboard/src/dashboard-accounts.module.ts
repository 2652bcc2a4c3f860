import { Module } from '@nestjs/common';
import { DashboardAccounts } from './accounts.service.js';
import { DashboardAuditRepository } from './persistence/dashboard-audit.repository.js';
import { DashboardInviteRepository } from './persistence/dashboard-invite.repository.js';
import { DashboardPasswordResetRepository } from './persistence/dashboard-password-reset.repository.js';
import { DashboardSessionRepository } from './persistence/dashboard-session.repository.js';
import { DashboardUserRepository } from './persistence/dashboard-user.repository.js';
import { DashboardSessions } from './sessions.service.js';

/** Dashboard users, invites, sessions and audit: needs only the database (for the dashboard app and the operator CLI). */
@Module({
  providers: [DashboardUserRepository, DashboardInviteRepository, DashboardPasswordResetRepository, DashboardSessionRepository, DashboardAuditRepository, DashboardAccounts, DashboardSessions],
  exports: [DashboardAccounts, DashboardAuditRepository, DashboardSessions],
})
export class DashboardAccountsModule {}
