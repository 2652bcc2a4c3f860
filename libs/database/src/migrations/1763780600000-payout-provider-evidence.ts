import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the payout worker needs to prove a provider never received a payout, and the trail staff
 * read when it cannot:
 *
 * - `payouts.not_found_streak`: consecutive lookups, each made after the submission's settle
 *   period, that found nothing under the merchant reference. Two release the hold (the same
 *   rule as purchases); any answer that finds the payment resets it.
 * - `payouts.provider_seen_at`: the first time the provider answered with a payment for the
 *   merchant reference (submission or lookup). A payout the provider once acknowledged is never
 *   released by a later "not found": that is a status conflict for staff.
 * - `payout_provider_contacts`: append-only, one row per submission or lookup and what it said
 *   (outcome, HTTP status, a short summary; never a PIN).
 *
 * Review items left without a poll by the previous code (the chain stopped at needs_review) get
 * one due now, so the sweeper resumes their slow polling after deployment.
 */
export class PayoutProviderEvidence1763780600000 implements MigrationInterface {
  name = 'PayoutProviderEvidence1763780600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE payouts
        ADD COLUMN not_found_streak integer NOT NULL DEFAULT 0 CHECK (not_found_streak >= 0),
        ADD COLUMN provider_seen_at timestamptz NULL`);
    await queryRunner.query(`UPDATE payouts SET provider_seen_at = COALESCE(last_checked_at, updated_at) WHERE provider_reference IS NOT NULL OR status IN ('paid', 'reversed')`);
    await queryRunner.query(`
      CREATE TABLE payout_provider_contacts (
        id bigserial PRIMARY KEY,
        payout_id uuid NOT NULL REFERENCES payouts(id),
        kind text NOT NULL CHECK (kind IN ('submission', 'lookup')),
        outcome text NOT NULL,
        http_status integer NULL,
        summary text NULL,
        at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX payout_provider_contacts_payout_idx ON payout_provider_contacts (payout_id, id)`);
    await queryRunner.query(`
      CREATE FUNCTION payout_provider_contacts_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'payout_provider_contacts is append-only';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER payout_provider_contacts_append_only BEFORE UPDATE OR DELETE ON payout_provider_contacts
        FOR EACH ROW EXECUTE FUNCTION payout_provider_contacts_append_only()`);
    await queryRunner.query(`
      CREATE TRIGGER payout_provider_contacts_no_truncate BEFORE TRUNCATE ON payout_provider_contacts
        FOR EACH STATEMENT EXECUTE FUNCTION payout_provider_contacts_append_only()`);
    await queryRunner.query(`UPDATE payouts SET next_poll_at = now() WHERE status = 'needs_review' AND next_poll_at IS NULL AND submission_started_at IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE payout_provider_contacts`);
    await queryRunner.query(`DROP FUNCTION payout_provider_contacts_append_only()`);
    await queryRunner.query(`ALTER TABLE payouts DROP COLUMN provider_seen_at, DROP COLUMN not_found_streak`);
  }
}
