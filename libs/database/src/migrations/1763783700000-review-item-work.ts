import type { MigrationInterface, QueryRunner } from 'typeorm';

const ITEM_TYPES = `'purchase', 'payout'`;

/**
 * The review queues' items (purchases in `review`, payouts in `needs_review`) are worked as the
 * exceptions desk works an exception (issue 28, docs/BACK-OFFICE.md, "Owner and notes"):
 *
 * - `staff_item_claims`: at most one owner per item, and since when. The row belongs to the
 *   back-office, not to the purchase or payout: the domains' tables and their writers stay as
 *   they are, and a claim never takes a lock on the item itself.
 * - `staff_item_notes`: append-only notes with author and time (a trigger refuses UPDATE,
 *   DELETE and TRUNCATE), as `reconciliation_exception_notes`.
 */
export class ReviewItemWork1763783700000 implements MigrationInterface {
  name = 'ReviewItemWork1763783700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE staff_item_claims (
        subject_type text NOT NULL CHECK (subject_type IN (${ITEM_TYPES})),
        subject_id uuid NOT NULL,
        owner_staff_id uuid NULL REFERENCES staff_users(id),
        claimed_at timestamptz NULL,
        PRIMARY KEY (subject_type, subject_id),
        CONSTRAINT staff_item_claims_owner_claimed CHECK ((owner_staff_id IS NULL) = (claimed_at IS NULL))
      )`);
    await queryRunner.query(`
      CREATE TABLE staff_item_notes (
        id bigserial PRIMARY KEY,
        subject_type text NOT NULL CHECK (subject_type IN (${ITEM_TYPES})),
        subject_id uuid NOT NULL,
        author_staff_id uuid NOT NULL REFERENCES staff_users(id),
        author text NOT NULL,
        body text NOT NULL CHECK (length(btrim(body)) BETWEEN 1 AND 4000),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX staff_item_notes_subject_idx ON staff_item_notes (subject_type, subject_id, id)`);
    await queryRunner.query(`
      CREATE FUNCTION staff_item_notes_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'staff_item_notes is append-only';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER staff_item_notes_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON staff_item_notes
        FOR EACH STATEMENT EXECUTE FUNCTION staff_item_notes_append_only()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE staff_item_notes`);
    await queryRunner.query(`DROP FUNCTION staff_item_notes_append_only()`);
    await queryRunner.query(`DROP TABLE staff_item_claims`);
  }
}
