import pg from 'pg';
import { runMigrations } from '#database';

/** Runs the real migrations once per run; an advisory lock keeps parallel test files from racing. */
beforeAll(async () => {
  const url = process.env.E2E_DATABASE_URL!;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(7421)');
    await runMigrations(url);
  } finally {
    await client.query('SELECT pg_advisory_unlock(7421)').catch(() => undefined);
    await client.end();
  }
});
