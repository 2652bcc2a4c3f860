import pg from 'pg';
import { DataSource } from 'typeorm';
import { appendRecorded, isPreparable, statementKey, type RecordedStatement } from './sql-snapshots.js';

/**
 * Records every statement the repositories issue while a test file runs (docs/ARCHITECTURE.md,
 * SQL snapshots), into the run's recording (E2E_SQL_RECORD, set by global-setup.ts), for
 * test/queries/query-snapshots.e2e-spec.ts. Two hooks, each where repository code calls in
 * synchronously, so the calling repository method is on the stack:
 * - `DataSource.query`, which `EntityManager.query` and `updateReturning` end in (TypeORM reaches
 *   pg only after an await, when the caller is no longer on the stack);
 * - `pg.Client.query`, for the repositories that hold a client of their own (the invariant CLI's
 *   read-only snapshot).
 * A statement no persistence module issued (test fixtures, migrations, TypeORM's own) is ignored.
 */

const PERSISTENCE_FRAME = /\/libs\/([\w-]+)\/src\/persistence\/([\w.-]+)\.ts:\d+:\d+\)?$/;
// Pass-through helpers: the statement is the caller's.
const HELPERS = new Set(['database/update-returning', 'invariants/invariant-query', 'invariants/read-only-snapshot']);
const FRAME_NAME = /^\s*at (?:new )?([\w$.<>]+) \(/;

/** The persistence module and function on the synchronous stack that issued a statement, or null. */
function issuer(): Omit<RecordedStatement, 'sql'> | null {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const frames = stack.split('\n').filter((line) => !line.includes(' at async '));
  let source: string | null = null;
  let label: string | null = null;
  for (const frame of frames) {
    const match = PERSISTENCE_FRAME.exec(frame);
    const here = match ? `${match[1]}/${match[2]}` : null;
    if (source === null) {
      if (!here || HELPERS.has(here)) continue;
      source = here;
    } else if (here !== source) break;
    // The first named frame of the issuing module: an arrow function inside a method has none.
    const name = FRAME_NAME.exec(frame)?.[1];
    if (name && !name.includes('<anonymous>') && !name.startsWith('Array.')) {
      label = name;
      break;
    }
  }
  return source === null ? null : { source, label: label ?? source.split('/')[1] };
}

const recording = process.env.E2E_SQL_RECORD;
if (recording) {
  const seen = new Set<string>();
  const record = (sql: unknown) => {
    if (typeof sql !== 'string' || !isPreparable(sql)) return;
    const key = statementKey(sql);
    if (seen.has(key)) return;
    const from = issuer();
    if (!from) return;
    seen.add(key);
    appendRecorded(recording, { ...from, sql });
  };

  const dataSourceQuery = DataSource.prototype.query;
  DataSource.prototype.query = function (this: DataSource, ...args: Parameters<DataSource['query']>) {
    record(args[0]);
    return dataSourceQuery.apply(this, args);
  } as unknown as DataSource['query'];

  const clientQuery = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0];
    record(typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text);
    return (clientQuery as (...parameters: unknown[]) => unknown).apply(this, args);
  } as unknown as typeof pg.Client.prototype.query;
}
