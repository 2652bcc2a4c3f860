import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * One fresh database per test run. Its URL reaches the test files through the environment;
 * migrations run from test/support/migrate.ts inside Jest's module system (globalSetup is
 * loaded by Node directly and cannot resolve the TypeScript libs).
 */
export default async function globalSetup(): Promise<void> {
  const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/gateway';
  const url = new URL(base);
  const name = `gateway_e2e_${Date.now()}_${process.pid}`;
  url.pathname = `/${name}`;
  process.env.E2E_DATABASE_URL = url.toString();
  // Queues of this run are invisible to any other worker sharing the Redis server.
  process.env.E2E_QUEUE_PREFIX = `{e2e-${process.pid}-${Date.now()}}`;
  process.env.E2E_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  // The statements the repositories issue in this run (test/support/sql-recorder.ts), checked
  // against the committed SQL snapshots by test/queries/query-snapshots.e2e-spec.ts.
  process.env.E2E_SQL_RECORD = join(tmpdir(), `${name}.sql.jsonl`);
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}
