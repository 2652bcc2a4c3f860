import sql from 'sql-template-tag';
import { ledgerMoveCtes } from './ledger.repository.js';

describe('ledgerMoveCtes', () => {
  it('numbers its parameters after those of the statement it is composed into, its values travelling with it', () => {
    const move = ledgerMoveCtes(
      { kind: 'settle', vendorId: 'vendor-1', totalCents: 1_500n, entries: [{ payoutId: 'payout-1', cents: 1_500n }] },
      sql`EXISTS (SELECT 1 FROM paid WHERE id = ${'payout-1'})`,
    );
    const statement = sql`WITH paid AS (SELECT ${'first'}::text AS id), ${move} SELECT ${'last'}::text`;
    const placeholders = [...statement.text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1]));
    expect(placeholders).toEqual(statement.values.map((_, index) => index + 1));
    expect(statement.values[0]).toBe('first');
    expect(statement.values.at(-1)).toBe('last');
    // settle: the amount bound in the assignment and the guard, the kind and its (available, reserved) signs.
    expect(statement.values).toEqual(['first', '1500', 'vendor-1', '1500', 'payout-1', 'settle', 0, -1, null, ['1500'], ['payout-1'], 'last']);
    expect(statement.text).toContain('reserved_cents = reserved_cents - $2::bigint');
    expect(statement.text).toContain('reserved_cents >= $4::bigint');
  });
});
