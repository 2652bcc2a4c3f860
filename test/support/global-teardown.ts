import { rmSync } from 'node:fs';
import pg from 'pg';

export default async function globalTeardown(): Promise<void> {
  if (process.env.E2E_SQL_RECORD) rmSync(process.env.E2E_SQL_RECORD, { force: true });
  const url = process.env.E2E_DATABASE_URL;
  if (!url || process.env.E2E_KEEP_DATABASE) return;
  const name = new URL(url).pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
