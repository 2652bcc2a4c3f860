import pg from 'pg';
import { ADMISSION_REFUSAL_ERROR_CODES } from '#purchase';

/**
 * purchase_admit and purchase_admission_refuse, the function it refuses through (PL/pgSQL,
 * migration 1763781500000), write the refusal codes as SQL strings, and ADMISSION_REFUSAL_ERROR_CODES lists them again, typed, for the code that turns a
 * refusal into its error. The function's source in the migrated database and the typed list must
 * name the same codes: a code only the function raises would reach the vendor as a 500, a code
 * only the list names is dead.
 */
describe('purchase_admit refuses with exactly the typed admission refusal codes', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL! });
    await client.connect();
  });
  afterAll(async () => client?.end());

  /** `{"code": "X"...}` in a JSON literal, and `jsonb_build_object('code', 'X', ...)`. */
  const CODE_IN_SOURCE = /"code":\s*"([A-Z_]+)"|'code',\s*'([A-Z_]+)'/g;
  const codesIn = (source: string) => new Set([...source.matchAll(CODE_IN_SOURCE)].map((match) => match[1] ?? match[2]));

  it('finds every refusal code of the function in the typed catalogue, and every catalogued code in the function', async () => {
    const { rows } = await client.query<{ name: string; definition: string }>(
      `SELECT proname AS name, pg_get_functiondef(oid) AS definition FROM pg_proc WHERE proname IN ('purchase_admit', 'purchase_admission_refuse') ORDER BY proname`,
    );
    // One of each, not an overload left behind by a migration: their source is the only truth.
    expect(rows.map((row) => row.name)).toEqual(['purchase_admission_refuse', 'purchase_admit']);
    const raised = codesIn(rows.map((row) => row.definition).join('\n'));
    expect([...raised].sort()).toEqual(Object.keys(ADMISSION_REFUSAL_ERROR_CODES).sort());
  });

  it('reads codes in both spellings the function uses (a check that cannot see them would pass on an empty set)', () => {
    expect(codesIn(`DETAIL = '{"code": "A_B", "x": 1}'; jsonb_build_object('code', 'C_D', 'n', 2)`)).toEqual(new Set(['A_B', 'C_D']));
  });
});
