import { Module } from '@nestjs/common';
import { VendorAccountsModule } from '#auth';
import { DashboardAccounts } from './accounts.service.js';
import { DashboardAuditService } from './audit.service.js';
import { DashboardAuditRepository } from './persistence/dashboard-audit.repository.js';
import { DashboardInviteRepository } from './persistence/dashboard-invite.repository.js';
import { DashboardPasswordResetRepository } from './persistence/dashboard-password-reset.repository.js';
import { DashboardSessionRepository } from './persistence/dashboard-session.repository.js';
import { DashboardUserRepository } from './persistence/dashboard-user.repository.js';
import { DashboardSessions } from './sessions.service.js';

/** Dashboard users, invites, sessions and audit: needs only the database and #auth's vendor facts (for the dashboard app and the operator CLI). */
@Module({
  imports: [VendorAccountsModule],
  providers: [DashboardUserRepository, DashboardInviteRepository, DashboardPasswordResetRepository, DashboardSessionRepository, DashboardAuditRepository, DashboardAuditService, DashboardAccounts, DashboardSessions],
  exports: [DashboardAccounts, DashboardAuditService, DashboardSessions],
})
export class DashboardAccountsModule {}
