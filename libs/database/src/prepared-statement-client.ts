import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * How many statements one connection prepares at the most. The repositories issue a fixed set of
 * statement texts (test/queries holds every one), a few hundred in all; a text built with a
 * varying shape (a list of n placeholders) past the cap runs unnamed, as every statement did
 * before, so a connection's server-side memory stays bounded whatever the callers send.
 */
export const MAX_PREPARED_STATEMENTS_PER_CONNECTION = 300;

// Names by text, shared by the process's connections; a text's name is a hash of it, so the cache
// can be dropped at any time without two texts ever sharing a name.
const NAME_CACHE_LIMIT = 2_000;
const namesByText = new Map<string, string>();

/** The statement's name on every connection: `s_` and 132 bits of its text's SHA-256 (a collision would need 2^66 texts). */
export function preparedStatementName(text: string): string {
  let name = namesByText.get(text);
  if (name === undefined) {
    name = `s_${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`;
    if (namesByText.size >= NAME_CACHE_LIMIT) namesByText.clear();
    namesByText.set(text, name);
  }
  return name;
}

/**
 * A pg client that runs every parameterised statement as a named prepared statement of its
 * connection. node-postgres sends a text with values as an unnamed statement: PostgreSQL parses,
 * analyses and plans it on every call. Measured with pg_stat_statements on the benchmark's
 * purchase path, planning alone was 38 % of the statements' time (the CTE writes and the claims
 * plan for longer than they run); a named statement is parsed once per connection and, once
 * PostgreSQL judges its generic plan as good as the custom ones (plan_cache_mode auto, after five
 * runs), planned once too. Results are the same: the text, values and types are unchanged.
 *
 * Statements without values (BEGIN, COMMIT, SET, migrations' DDL) run as before: there is nothing
 * to reuse and DDL must not be cached. Needs a connection per session, as this pool gives: a
 * transaction-mode pooler between the app and PostgreSQL must keep prepared statements per
 * client (PgBouncer 1.21+ `max_prepared_statements`), or DATABASE_PREPARED_STATEMENTS=false.
 */
export class PreparedStatementClient extends pg.Client {
  /** The names this connection has prepared (or is preparing). */
  readonly prepared = new Set<string>();
}

// The override is a prototype method that calls pg.Client.prototype.query as it is at each call,
// so instrumentation that wraps pg's method (APM agents, the benchmark's and tests' statement
// counters), before or after this client was made, sees every statement, named or not.
Object.defineProperty(PreparedStatementClient.prototype, 'query', {
  configurable: true,
  writable: true,
  value: function query(this: PreparedStatementClient, ...args: unknown[]): unknown {
    const base = pg.Client.prototype.query as (...args: unknown[]) => unknown;
    const [text, values, callback] = args;
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) return base.apply(this, args);
    const name = preparedStatementName(text);
    if (!this.prepared.has(name)) {
      if (this.prepared.size >= MAX_PREPARED_STATEMENTS_PER_CONNECTION) return base.apply(this, args);
      this.prepared.add(name);
    }
    return callback === undefined ? base.call(this, { name, text, values }) : base.call(this, { name, text, values }, callback);
  },
});
