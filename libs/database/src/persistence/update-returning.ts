import type { EntityManager } from 'typeorm';

/**
 * Runs an `UPDATE ... RETURNING` and gives the returned rows. TypeORM's raw `query()` answers
 * an UPDATE with `[rows, rowCount]` (SELECT and INSERT with the rows alone), which made guarded
 * updates easy to misread as "always one row".
 */
export async function updateReturning<T>(manager: Pick<EntityManager, 'query'>, sql: string, parameters: unknown[]): Promise<T[]> {
  const result: unknown = await manager.query(sql, parameters);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
