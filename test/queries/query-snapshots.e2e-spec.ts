import pg from 'pg';
import { readRecorded, readSnapshots, statementKey, tidy, writeSnapshots, type RecordedStatement } from '../support/sql-snapshots.js';

/**
 * SQL that fails in CI (docs/ARCHITECTURE.md, SQL snapshots). Runs last in the e2e suite
 * (test/support/sql-snapshots-last.cjs), over the statements every earlier test file issued
 * through a repository (test/support/sql-recorder.ts):
 * - each snapshot statement, and each statement of this run, must PREPARE against the freshly
 *   migrated schema: a wrong column, table or type fails here, even where no assertion of the
 *   test that issued it would notice;
 * - a statement of this run that is not in the committed snapshots (test/queries/<lib>/<repository>.sql)
 *   is listed as a warning: run `npm run sql:snapshots` and commit the diff, so review shows every
 *   statement a change alters. It fails the run only with SQL_SNAPSHOTS_STRICT=1, because some
 *   statements are issued only when a race goes one way (a losing concurrent copy re-reading a
 *   batch), and CI must not turn red on which way a race went.
 * `SQL_SNAPSHOTS=update` adds this run's statements to the snapshots, `SQL_SNAPSHOTS=rewrite`
 * replaces them with this run's (scripts/sql-snapshots.sh, on a run of the whole suite).
 */

const describeStatement = (statement: RecordedStatement) => `${statement.source} ${statement.label}\n${tidy(statement.sql)}`;

describe('SQL snapshots', () => {
  const recorded = readRecorded(process.env.E2E_SQL_RECORD);
  const mode = process.env.SQL_SNAPSHOTS;
  if (mode === 'update') writeSnapshots([...readSnapshots(), ...recorded]);
  if (mode === 'rewrite') writeSnapshots(recorded);
  const snapshots = readSnapshots();

  it('prepares every snapshot statement, and every statement of this run, against the migrated schema', async () => {
    const known = new Set(snapshots.map((statement) => statementKey(statement.sql)));
    const missing = recorded.filter((statement) => !known.has(statementKey(statement.sql)));
    if (missing.length > 0) {
      const message =
        `${missing.length} statement(s) issued by a repository are not in test/queries (run \`npm run sql:snapshots\` and review the diff):\n\n` +
        missing.map(describeStatement).join('\n\n');
      if (process.env.SQL_SNAPSHOTS_STRICT === '1') throw new Error(message);
      console.warn(message);
    }
    expect(snapshots.length).toBeGreaterThan(0);
    const client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
    await client.connect();
    const failures: string[] = [];
    try {
      const statements = new Map<string, RecordedStatement>();
      for (const statement of [...snapshots, ...recorded]) statements.set(statementKey(statement.sql), statement);
      for (const statement of statements.values()) {
        try {
          await client.query(`PREPARE snapshot_statement AS ${statement.sql}`);
          await client.query('DEALLOCATE snapshot_statement');
        } catch (error) {
          failures.push(`${(error as Error).message}\n  in ${describeStatement(statement)}`);
        }
      }
    } finally {
      await client.end();
    }
    if (failures.length > 0) throw new Error(`${failures.length} statement(s) do not prepare against the migrated schema:\n\n${failures.join('\n\n')}`);
  });
});
