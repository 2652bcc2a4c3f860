export * from './roles.js';
export * from './audit-event.js';
export * from './audit.service.js';
// Until the payouts, webhooks and sign-in pages move to DashboardAuditService (issue 30): the last repository exported.
export { DashboardAuditRepository } from './persistence/dashboard-audit.repository.js';
export * from './accounts.service.js';
export * from './sessions.service.js';
export * from './dashboard-accounts.module.js';
