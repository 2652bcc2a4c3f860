import type { EntityManager } from 'typeorm';

/** A composed statement (an `Sql` of sql-template-tag): its text with `$n` placeholders and their values. */
export interface SqlStatement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/**
 * Runs an `UPDATE ... RETURNING` and gives the returned rows. TypeORM's raw `query()` answers
 * an UPDATE with `[rows, rowCount]` (SELECT and INSERT with the rows alone), which made guarded
 * updates easy to misread as "always one row".
 */
export async function updateReturning<T>(manager: Pick<EntityManager, 'query'>, statement: SqlStatement): Promise<T[]>;
export async function updateReturning<T>(manager: Pick<EntityManager, 'query'>, sql: string, parameters: unknown[]): Promise<T[]>;
export async function updateReturning<T>(manager: Pick<EntityManager, 'query'>, sql: string | SqlStatement, parameters: unknown[] = []): Promise<T[]> {
  const result: unknown = typeof sql === 'string' ? await manager.query(sql, parameters) : await manager.query(sql.text, [...sql.values]);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
