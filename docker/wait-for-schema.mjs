// Init container of every Deployment (k8s/base): blocks until the database schema holds every
// migration this image was built with, so a new version serves only after the migration Job has
// run. Read-only: it never creates or migrates anything, and it keeps retrying while the database
// is unreachable or the migrations table does not exist yet.
//   node docker/wait-for-schema.mjs        (DATABASE_URL from the environment)
// Exit 0 when the schema is current, 1 after SCHEMA_WAIT_TIMEOUT_SECONDS (default 600).
import 'reflect-metadata';
import pg from 'pg';
import { buildDataSourceOptions } from '#database';

const databaseUrl = process.env.DATABASE_URL;
const timeoutSeconds = Number(process.env.SCHEMA_WAIT_TIMEOUT_SECONDS ?? 600);
const pollMs = Number(process.env.SCHEMA_WAIT_POLL_MS ?? 2000);

function log(msg, fields = {}) {
  process.stdout.write(`${JSON.stringify({ level: 'info', time: Date.now(), msg, ...fields })}\n`);
}

/** The names TypeORM records for this build's migrations (migration.name, else the class name). */
function expectedMigrationNames(options) {
  if (!Array.isArray(options.migrations) || options.migrations.some((entry) => typeof entry !== 'function')) {
    throw new Error('buildDataSourceOptions().migrations must be an array of migration classes');
  }
  return options.migrations.map((Migration) => new Migration().name ?? Migration.name);
}

async function missingMigrations(client, table, expected) {
  const exists = await client.query('SELECT to_regclass($1) AS found', [table]);
  if (exists.rows[0].found === null) return expected;
  const applied = await client.query(`SELECT name FROM ${table.split('.').map((part) => `"${part}"`).join('.')}`);
  const names = new Set(applied.rows.map((row) => row.name));
  return expected.filter((name) => !names.has(name));
}

if (!databaseUrl) {
  process.stderr.write('wait-for-schema: DATABASE_URL is not set\n');
  process.exit(78);
}

const options = buildDataSourceOptions({ url: databaseUrl, poolSize: 1, applicationName: 'wait-for-schema' });
const table = options.migrationsTableName ?? 'migrations';
const expected = expectedMigrationNames(options);
const deadline = Date.now() + timeoutSeconds * 1000;
let lastReport = '';

for (;;) {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'wait-for-schema', connectionTimeoutMillis: 5000 });
  let report;
  try {
    await client.connect();
    const missing = await missingMigrations(client, table, expected);
    if (missing.length === 0) {
      log('schema is current', { migrations: expected.length });
      await client.end();
      process.exit(0);
    }
    report = `waiting for ${missing.length} migration(s): ${missing.join(', ')}`;
  } catch (error) {
    report = `database not answering yet: ${error instanceof Error ? error.message : String(error)}`;
  }
  await client.end().catch(() => undefined);
  if (report !== lastReport) log(report);
  lastReport = report;
  if (Date.now() > deadline) {
    process.stderr.write(`wait-for-schema: gave up after ${timeoutSeconds}s: ${report}\n`);
    process.exit(1);
  }
  await new Promise((resolve) => setTimeout(resolve, pollMs));
}
