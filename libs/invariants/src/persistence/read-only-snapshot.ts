import pg from 'pg';
import type { InvariantQuery } from './invariant-query.js';

/**
 * Runs `work` inside one repeatable-read, read-only transaction on its own connection, so every
 * check sees the same committed state while live traffic goes on. For the CLI; tests and the
 * reliability suites pass their own query function to checkInvariants.
 */
export async function withReadOnlySnapshot<T>(url: string, applicationName: string, work: (query: InvariantQuery) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: applicationName });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await work(async (sql, parameters) => (await client.query(sql, parameters as unknown[])).rows);
    await client.query('COMMIT');
    return result;
  } finally {
    await client.end();
  }
}
