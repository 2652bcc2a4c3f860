/**
 * Migration entry point: `node dist/libs/database/src/migrate.js` (npm run migration:run,
 * the compose `migrate` service and the Kubernetes migration Job).
 */
import 'reflect-metadata';
import { loadConfig } from '#config';
import { ensureDatabaseExists } from './persistence/ensure-database.js';
import { runMigrations } from './run-migrations.js';

const config = loadConfig(process.env, {}, ['database']);
if (process.argv.includes('--create-database')) await ensureDatabaseExists(config.DATABASE_URL);
const applied = await runMigrations(config.DATABASE_URL);
console.log(JSON.stringify({ msg: 'migrations applied', applied }));
