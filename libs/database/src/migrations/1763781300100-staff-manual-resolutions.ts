import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Manual resolutions of review items (docs/BACK-OFFICE.md): a purchase in `review` or a payout
 * in `needs_review` resolved by two staff when the provider cannot be asked. One row per item at
 * most (money moves once), always naming the approved proposal; append-only. The invariant
 * checker verifies each against its proposal and the provider's record.
 */
export class StaffManualResolutions1763781300100 implements MigrationInterface {
  name = 'StaffManualResolutions1763781300100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE staff_manual_resolutions (
        id bigserial PRIMARY KEY,
        domain text NOT NULL CHECK (domain IN ('purchase', 'payout')),
        item_id uuid NOT NULL,
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        outcome text NOT NULL CHECK ((domain = 'purchase' AND outcome IN ('completed', 'failed')) OR (domain = 'payout' AND outcome IN ('paid', 'failed'))),
        proposal_id uuid NOT NULL REFERENCES staff_proposals(id),
        resolved_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT staff_manual_resolutions_once UNIQUE (domain, item_id)
      )`);
    await queryRunner.query(`CREATE INDEX staff_manual_resolutions_vendor_idx ON staff_manual_resolutions (vendor_id)`);
    await queryRunner.query(`
      CREATE FUNCTION staff_manual_resolutions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'staff_manual_resolutions is append-only';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER staff_manual_resolutions_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON staff_manual_resolutions
        FOR EACH STATEMENT EXECUTE FUNCTION staff_manual_resolutions_append_only()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE staff_manual_resolutions`);
    await queryRunner.query(`DROP FUNCTION staff_manual_resolutions_append_only()`);
  }
}
