import pg from 'pg';
import { runMigrations } from '#database';

/**
 * A migrated database of a test file's own, on the run's server, for a file that changes what
 * every other file would see (the close of today moves the settlement side's clock). Dropped
 * by `drop()`.
 */
export async function createScratchDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `gateway_e2e_${label}_${process.pid}_${Date.now()}`;
  const admin = () => {
    const url = new URL(process.env.E2E_DATABASE_URL!);
    url.pathname = '/postgres';
    return new pg.Client({ connectionString: url.toString() });
  };
  const run = async (sql: string) => {
    const client = admin();
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await run(`CREATE DATABASE "${name}"`);
  const url = new URL(process.env.E2E_DATABASE_URL!);
  url.pathname = `/${name}`;
  await runMigrations(url.toString());
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
