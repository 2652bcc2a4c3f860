import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payout holds are bounded (issue 26, PAYOUT_HOLD_MAX_AGE_MS):
 * - the `hold_overdue` reconciliation exception kind. The kind CHECK is rebuilt from the one in
 *   force plus the new kind, not from a written list, so kinds another migration added meanwhile
 *   are kept. Its timestamp sorts after the ledger-corrections migration (1763782610000), which
 *   rewrites the same CHECK from a written list;
 * - an index of the open holds (pending, needs_review) by creation, for the worker's sweep and the
 *   invariant: only open payouts are in it.
 */
export class PayoutHoldBound1763782900000 implements MigrationInterface {
  name = 'PayoutHoldBound1763782900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await setKinds(queryRunner, (kinds) => [...new Set([...kinds, 'hold_overdue'])]);
    await queryRunner.query(`CREATE INDEX payouts_open_hold_idx ON payouts (created_at) WHERE status IN ('pending', 'needs_review')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX payouts_open_hold_idx`);
    await queryRunner.query(`DELETE FROM reconciliation_exceptions WHERE kind = 'hold_overdue'`);
    await setKinds(queryRunner, (kinds) => kinds.filter((kind) => kind !== 'hold_overdue'));
  }
}

/** Replaces the CHECK on reconciliation_exceptions.kind with one allowing `change(current kinds)`. */
async function setKinds(queryRunner: QueryRunner, change: (kinds: string[]) => string[]): Promise<void> {
  const checks: { name: string; definition: string }[] = await queryRunner.query(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
      WHERE conrelid = 'reconciliation_exceptions'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%kind%'`,
  );
  if (checks.length !== 1) throw new Error(`expected one CHECK on reconciliation_exceptions.kind, found ${checks.length}`);
  const kinds = [...checks[0].definition.matchAll(/'([a-z_]+)'::text/g)].map((match) => match[1]);
  if (kinds.length === 0) throw new Error(`cannot read the kinds of ${checks[0].definition}`);
  const allowed = change(kinds).map((kind) => `'${kind}'`).join(', ');
  await queryRunner.query(`ALTER TABLE reconciliation_exceptions DROP CONSTRAINT "${checks[0].name}"`);
  await queryRunner.query(`ALTER TABLE reconciliation_exceptions ADD CONSTRAINT reconciliation_exceptions_kind_check CHECK (kind IN (${allowed}))`);
}
