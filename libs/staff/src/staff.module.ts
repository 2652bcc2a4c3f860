import { Module } from '@nestjs/common';
import { FieldEncryption } from '#common';
import { FourEyes } from './four-eyes/four-eyes.service.js';
import { ProposalKinds } from './four-eyes/proposal-kinds.js';
import { StaffProposalKinds } from './four-eyes/staff-proposal-kinds.js';
import { StaffProposalRepository } from './persistence/staff-proposal.repository.js';
import { StaffSessionRepository } from './persistence/staff-session.repository.js';
import { StaffUserRepository } from './persistence/staff-user.repository.js';
import { StaffAccounts } from './staff-accounts.service.js';
import { StaffAuditLog } from './persistence/staff-audit.repository.js';
import { StaffEvents } from './staff-events.js';
import { StaffSessions } from './staff-sessions.service.js';

const REPOSITORIES = [StaffUserRepository, StaffSessionRepository, StaffProposalRepository];
const SERVICES = [StaffAccounts, StaffSessions, StaffAuditLog, ProposalKinds, FourEyes, StaffEvents];

/** Staff identities, sessions, four-eyes proposals and the audit trail: needs only the database (the back-office and the operator CLI). */
@Module({
  providers: [...REPOSITORIES, ...SERVICES, StaffProposalKinds, FieldEncryption],
  exports: SERVICES,
})
export class StaffModule {}
