export * from './roles.js';
export * from './persistence/dashboard-audit.repository.js';
export * from './accounts.service.js';
export * from './sessions.service.js';
export * from './dashboard-accounts.module.js';
