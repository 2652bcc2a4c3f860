import pg from 'pg';
import { readRecorded, readSnapshots, statementKey, tidy, writeSnapshots, type RecordedStatement } from '../support/sql-snapshots.js';

/**
 * SQL that fails in CI (docs/ARCHITECTURE.md, SQL snapshots). Runs last in the e2e suite
 * (test/support/sql-snapshots-last.cjs), over the statements every earlier test file issued
 * through a repository (test/support/sql-recorder.ts):
 * - each of them must be in the committed snapshots (test/queries/<lib>/<repository>.sql), so a
 *   change to a statement shows in review and `npm run sql:snapshots` must be run to accept it;
 * - each snapshot statement, and each statement of this run, must PREPARE against the freshly
 *   migrated schema: a wrong column, table or type fails here, even where no assertion of the
 *   test that issued it would notice.
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

  it('holds every statement the repositories issued in this run', () => {
    const known = new Set(snapshots.map((statement) => statementKey(statement.sql)));
    const missing = recorded.filter((statement) => !known.has(statementKey(statement.sql)));
    if (missing.length > 0) {
      throw new Error(
        `${missing.length} statement(s) issued by a repository are not in test/queries (run \`npm run sql:snapshots\` and review the diff):\n\n` +
          missing.map(describeStatement).join('\n\n'),
      );
    }
    expect(snapshots.length).toBeGreaterThan(0);
  });

  it('prepares every snapshot statement, and every statement of this run, against the migrated schema', async () => {
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
