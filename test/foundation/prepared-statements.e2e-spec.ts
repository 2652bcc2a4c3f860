import { DataSource } from 'typeorm';
import { buildDataSourceOptions, MAX_PREPARED_STATEMENTS_PER_CONNECTION, preparedStatementName } from '#database';

/**
 * Statements with values run as named prepared statements of their connection (the pool's
 * PreparedStatementClient), on the real server: one connection per data source here, so
 * pg_prepared_statements shows exactly what this connection prepared.
 */
describe('prepared statements (PostgreSQL)', () => {
  const open = async (preparedStatements?: boolean) => {
    const dataSource = new DataSource(buildDataSourceOptions({ url: process.env.E2E_DATABASE_URL!, poolSize: 1, applicationName: 'e2e-prepared', preparedStatements }));
    return dataSource.initialize();
  };
  const preparedOf = async (dataSource: DataSource) =>
    new Map(((await dataSource.query(`SELECT name, statement FROM pg_prepared_statements`)) as { name: string; statement: string }[]).map((row) => [row.name, row.statement]));

  it('prepares a statement with values once per connection, under the name of its text, and answers each call with its own values', async () => {
    const dataSource = await open();
    try {
      const text = `SELECT $1::int + 1 AS n`;
      expect(await dataSource.query(text, [1])).toEqual([{ n: 2 }]);
      expect(await dataSource.query(text, [41])).toEqual([{ n: 42 }]);
      await dataSource.query(`SELECT 'no values' AS plain`);
      const prepared = await preparedOf(dataSource);
      expect(prepared.get(preparedStatementName(text))).toBe(text);
      // Without values it runs unnamed, as BEGIN, COMMIT and DDL do.
      expect([...prepared.values()]).not.toContain(`SELECT 'no values' AS plain`);
    } finally {
      await dataSource.destroy();
    }
  });

  it('keeps answering after the table under a prepared statement changes, and after a statement fails to parse', async () => {
    const dataSource = await open();
    try {
      await dataSource.query(`CREATE TEMP TABLE prepared_probe (a int, b text)`);
      await dataSource.query(`INSERT INTO prepared_probe VALUES (1, 'one'), (2, 'two')`);
      const read = `SELECT a FROM prepared_probe WHERE a = $1`;
      expect(await dataSource.query(read, [1])).toEqual([{ a: 1 }]);
      await dataSource.query(`ALTER TABLE prepared_probe DROP COLUMN b, ADD COLUMN c text`);
      expect(await dataSource.query(read, [2])).toEqual([{ a: 2 }]);
      await expect(dataSource.query(`SELECT missing FROM prepared_probe WHERE a = $1`, [1])).rejects.toThrow('column "missing" does not exist');
      expect(await dataSource.query(read, [1])).toEqual([{ a: 1 }]);
    } finally {
      await dataSource.destroy();
    }
  });

  it(`prepares at most ${MAX_PREPARED_STATEMENTS_PER_CONNECTION} statements on a connection and runs the rest unnamed, with the same answers`, async () => {
    const dataSource = await open();
    try {
      for (let i = 0; i < MAX_PREPARED_STATEMENTS_PER_CONNECTION + 5; i += 1) {
        expect(await dataSource.query(`SELECT $1::int + ${i} AS n`, [1])).toEqual([{ n: 1 + i }]);
      }
      expect((await preparedOf(dataSource)).size).toBe(MAX_PREPARED_STATEMENTS_PER_CONNECTION);
    } finally {
      await dataSource.destroy();
    }
  });

  it('prepares nothing with DATABASE_PREPARED_STATEMENTS=false', async () => {
    const dataSource = await open(false);
    try {
      expect(await dataSource.query(`SELECT $1::int + 1 AS n`, [1])).toEqual([{ n: 2 }]);
      expect((await preparedOf(dataSource)).size).toBe(0);
    } finally {
      await dataSource.destroy();
    }
  });
});
