export * from './data-source-options.js';
export * from './database.module.js';
export * from './persistence/ensure-database.js';
export * from './run-migrations.js';
export * from './persistence/update-returning.js';
