// What every invariant check module queries with; kept apart so the check modules and the
// checker that runs them do not import each other.

/** Anything that runs SQL and returns rows: a TypeORM DataSource or EntityManager, or a pg client wrapper. */
export type InvariantQuery = (sql: string, parameters?: unknown[]) => Promise<Array<Record<string, unknown>>>;

/** `($1::uuid[] IS NULL OR <column> = ANY($1))`: the vendor scope of every query. */
export const inScope = (column: string) => `($1::uuid[] IS NULL OR ${column} = ANY($1::uuid[]))`;

/** How many rows a check examined: `SELECT count(*) <from>`, where `from` is a FROM … WHERE in the vendor scope ($1). */
export async function countExamined(query: InvariantQuery, vendors: string[] | null, from: string): Promise<number> {
  const [{ examined }] = await query(`SELECT count(*)::int AS examined ${from}`, [vendors]);
  return Number(examined);
}
