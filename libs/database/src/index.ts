export * from './data-source-options.js';
export * from './database.module.js';
export * from './ensure-database.js';
export * from './run-migrations.js';
export * from './invariants/invariant-checker.js';
export * from './update-returning.js';
