export * from './roles.js';
export * from './audit-event.js';
export * from './audit.service.js';
export * from './accounts.service.js';
export * from './sessions.service.js';
export * from './dashboard-accounts.module.js';
