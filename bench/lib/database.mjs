import pg from 'pg';

/** A short-lived client on one database; the harness never holds connections during load. */
export async function withClient(url, action) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}

export async function query(url, sql, parameters = []) {
  return withClient(url, async (client) => (await client.query(sql, parameters)).rows);
}

/** The server's checkpoint counters (pg_stat_bgwriter, PostgreSQL 15), to tell which scenario a checkpoint overlapped. */
export async function checkpointCounts(url) {
  const [row] = await query(url, `SELECT checkpoints_timed::int AS timed, checkpoints_req::int AS requested, buffers_checkpoint::bigint AS buffers FROM pg_stat_bgwriter`);
  return { timed: row.timed, requested: row.requested, buffers: Number(row.buffers) };
}

/** Drops (terminating its sessions) and creates a database that only the benchmark uses. */
export async function recreateDatabase(pgBase, name) {
  if (!/^[a-z0-9_]+$/.test(name) || !name.includes('bench')) throw new Error(`refusing to recreate database ${name}`);
  await withClient(`${pgBase}/postgres`, async (client) => {
    await client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
    await client.query(`DROP DATABASE IF EXISTS "${name}"`);
    await client.query(`CREATE DATABASE "${name}"`);
  });
}

export async function dropDatabase(pgBase, name) {
  if (!/^[a-z0-9_]+$/.test(name) || !name.includes('bench')) throw new Error(`refusing to drop database ${name}`);
  await withClient(`${pgBase}/postgres`, async (client) => {
    await client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
    await client.query(`DROP DATABASE IF EXISTS "${name}"`);
  });
}

/** The server settings that shape every number in the report. */
export async function serverSettings(url) {
  const rows = await query(
    url,
    `SELECT name, setting, unit FROM pg_settings
      WHERE name IN ('server_version', 'max_connections', 'shared_buffers', 'synchronous_commit', 'fsync', 'wal_level', 'work_mem', 'effective_cache_size', 'max_wal_size', 'commit_delay')
      ORDER BY name`,
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.unit ? `${row.setting} ${row.unit}` : row.setting]));
}
