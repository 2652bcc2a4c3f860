import type { MigrationInterface, QueryRunner } from 'typeorm';

const MONEY_RESOLUTIONS = `'ledger_adjustment', 'recovered_from_vendor', 'repaid_to_vendor'`;
const RESOLUTIONS = `'no_money_moves', 'record_corrected', ${MONEY_RESOLUTIONS}`;

/**
 * Reconciliation exceptions become a back-office queue a person works (issue 26, docs/BACK-OFFICE.md,
 * "Exceptions"):
 *
 * - an owner: the staff member who claimed it, and since when;
 * - a named resolution kind, the staff account that resolved it and, for a resolution that moves
 *   money, the approved four-eyes proposal it comes from (the CHECK refuses a money resolution
 *   without one, and one proposal resolves at most one exception);
 * - notes: append-only, each with its author and time (a trigger refuses UPDATE, DELETE and TRUNCATE).
 *
 * Exceptions resolved before this migration (`ops reconcile:resolve --by`) keep a NULL kind.
 */
export class ExceptionDesk1763783100000 implements MigrationInterface {
  name = 'ExceptionDesk1763783100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE reconciliation_exceptions
        ADD COLUMN owner_staff_id uuid NULL REFERENCES staff_users(id),
        ADD COLUMN claimed_at timestamptz NULL,
        ADD COLUMN resolution_kind text NULL CHECK (resolution_kind IN (${RESOLUTIONS})),
        ADD COLUMN resolved_by_staff_id uuid NULL REFERENCES staff_users(id),
        ADD COLUMN resolution_proposal_id uuid NULL REFERENCES staff_proposals(id),
        ADD CONSTRAINT reconciliation_exceptions_owner_claimed CHECK ((owner_staff_id IS NULL) = (claimed_at IS NULL)),
        ADD CONSTRAINT reconciliation_exceptions_resolution_kind_resolved CHECK (resolution_kind IS NULL OR status = 'resolved'),
        ADD CONSTRAINT reconciliation_exceptions_money_approved CHECK (resolution_kind IS NULL OR resolution_kind NOT IN (${MONEY_RESOLUTIONS}) OR resolution_proposal_id IS NOT NULL)`);
    await queryRunner.query(`CREATE UNIQUE INDEX reconciliation_exceptions_resolution_proposal_key ON reconciliation_exceptions (resolution_proposal_id) WHERE resolution_proposal_id IS NOT NULL`);

    await queryRunner.query(`
      CREATE TABLE reconciliation_exception_notes (
        id bigserial PRIMARY KEY,
        exception_id uuid NOT NULL REFERENCES reconciliation_exceptions(id),
        author_staff_id uuid NOT NULL REFERENCES staff_users(id),
        author text NOT NULL,
        body text NOT NULL CHECK (length(btrim(body)) BETWEEN 1 AND 4000),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX reconciliation_exception_notes_exception_idx ON reconciliation_exception_notes (exception_id, id)`);
    await queryRunner.query(`
      CREATE FUNCTION reconciliation_exception_notes_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'reconciliation_exception_notes is append-only';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER reconciliation_exception_notes_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON reconciliation_exception_notes
        FOR EACH STATEMENT EXECUTE FUNCTION reconciliation_exception_notes_append_only()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE reconciliation_exception_notes`);
    await queryRunner.query(`DROP FUNCTION reconciliation_exception_notes_append_only()`);
    await queryRunner.query(`DROP INDEX reconciliation_exceptions_resolution_proposal_key`);
    await queryRunner.query(`
      ALTER TABLE reconciliation_exceptions
        DROP CONSTRAINT reconciliation_exceptions_money_approved,
        DROP CONSTRAINT reconciliation_exceptions_resolution_kind_resolved,
        DROP CONSTRAINT reconciliation_exceptions_owner_claimed,
        DROP COLUMN resolution_proposal_id,
        DROP COLUMN resolved_by_staff_id,
        DROP COLUMN resolution_kind,
        DROP COLUMN claimed_at,
        DROP COLUMN owner_staff_id`);
  }
}
