export * from './roles.js';
export * from './passwords.js';
export * from './secrets.js';
export * from './audit.service.js';
export * from './accounts.service.js';
export * from './sessions.service.js';
export * from './dashboard-accounts.module.js';
