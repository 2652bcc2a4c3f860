import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Staff back-office (docs/BACK-OFFICE.md): staff users with one role and a required second
 * factor, server-side sessions, four-eyes proposals (the approver is never the proposer, checked
 * by the table itself) and an append-only audit trail of every staff decision.
 */
export class StaffBackOffice1763781300000 implements MigrationInterface {
  name = 'StaffBackOffice1763781300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE staff_users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL CHECK (email = lower(email)),
        role text NOT NULL CHECK (role IN ('support', 'operator', 'approver', 'admin')),
        -- Both NULL until the person opens their one-time setup link; sign-in needs both.
        password_hash text NULL,
        totp_secret_ciphertext text NULL,
        totp_last_step bigint NULL,
        -- SHA-256 of the one-time setup link's secret (account creation, second-factor reset).
        setup_token_hash char(64) NULL UNIQUE,
        setup_expires_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        disabled_at timestamptz NULL,
        CHECK ((setup_token_hash IS NULL) = (setup_expires_at IS NULL))
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX staff_users_active_email_idx ON staff_users (email) WHERE disabled_at IS NULL`);

    await queryRunner.query(`
      CREATE TABLE staff_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash char(64) NOT NULL UNIQUE,
        staff_user_id uuid NOT NULL REFERENCES staff_users(id),
        csrf_token text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX staff_sessions_user_idx ON staff_sessions (staff_user_id) WHERE revoked_at IS NULL`);

    await queryRunner.query(`
      CREATE TABLE staff_proposals (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kind text NOT NULL,
        subject_type text NOT NULL,
        subject_id text NOT NULL,
        vendor_id uuid NULL REFERENCES vendors(id),
        params jsonb NOT NULL DEFAULT '{}',
        reason text NOT NULL CHECK (char_length(btrim(reason)) >= 10),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'refused', 'withdrawn')),
        proposed_by uuid NOT NULL REFERENCES staff_users(id),
        proposed_at timestamptz NOT NULL DEFAULT now(),
        decided_by uuid NULL REFERENCES staff_users(id),
        decided_at timestamptz NULL,
        decision_note text NULL,
        -- Four eyes in the schema itself: whoever decides is never whoever proposed.
        CONSTRAINT staff_proposals_four_eyes CHECK (decided_by IS DISTINCT FROM proposed_by),
        CHECK ((status = 'pending') = (decided_at IS NULL)),
        CHECK (status IN ('pending', 'withdrawn') OR decided_by IS NOT NULL)
      )`);
    // One open proposal per subject: two resolutions of one item cannot both wait for approval.
    await queryRunner.query(`CREATE UNIQUE INDEX staff_proposals_one_pending_idx ON staff_proposals (subject_type, subject_id) WHERE status = 'pending'`);
    await queryRunner.query(`CREATE INDEX staff_proposals_status_idx ON staff_proposals (status, proposed_at)`);
    // A proposal is decided once: afterwards nothing about it changes, and none is ever deleted.
    await queryRunner.query(`
      CREATE FUNCTION staff_proposals_guard() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'UPDATE' THEN
          RAISE EXCEPTION 'staff_proposals rows are never deleted';
        END IF;
        IF OLD.status <> 'pending' THEN
          RAISE EXCEPTION 'staff proposal % is already %', OLD.id, OLD.status;
        END IF;
        IF (NEW.kind, NEW.subject_type, NEW.subject_id, NEW.vendor_id, NEW.params, NEW.reason, NEW.proposed_by, NEW.proposed_at)
           IS DISTINCT FROM (OLD.kind, OLD.subject_type, OLD.subject_id, OLD.vendor_id, OLD.params, OLD.reason, OLD.proposed_by, OLD.proposed_at) THEN
          RAISE EXCEPTION 'a staff proposal''s content never changes';
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER staff_proposals_guard BEFORE UPDATE OR DELETE ON staff_proposals FOR EACH ROW EXECUTE FUNCTION staff_proposals_guard()`);
    await queryRunner.query(`CREATE TRIGGER staff_proposals_no_truncate BEFORE TRUNCATE ON staff_proposals FOR EACH STATEMENT EXECUTE FUNCTION staff_proposals_guard()`);

    await queryRunner.query(`
      CREATE TABLE staff_audit_events (
        id bigserial PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        -- NULL for the operator CLI, whose actor is 'ops'.
        actor_staff_id uuid NULL REFERENCES staff_users(id),
        actor text NOT NULL,
        action text NOT NULL,
        subject_type text NULL,
        subject_id text NULL,
        vendor_id uuid NULL REFERENCES vendors(id),
        reason text NULL,
        proposal_id uuid NULL REFERENCES staff_proposals(id),
        approved_by_staff_id uuid NULL REFERENCES staff_users(id),
        approved_by text NULL,
        details jsonb NOT NULL DEFAULT '{}',
        address text NULL
      )`);
    await queryRunner.query(`CREATE INDEX staff_audit_events_subject_idx ON staff_audit_events (subject_type, subject_id, id)`);
    await queryRunner.query(`CREATE INDEX staff_audit_events_proposal_idx ON staff_audit_events (proposal_id) WHERE proposal_id IS NOT NULL`);
    // Append-only in the database itself, like the dashboard's audit log.
    await queryRunner.query(`
      CREATE FUNCTION staff_audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'staff_audit_events is append-only';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER staff_audit_events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON staff_audit_events
        FOR EACH STATEMENT EXECUTE FUNCTION staff_audit_events_append_only()`);

    // The review queues are read oldest first, and their depth on every metrics scrape.
    await queryRunner.query(`CREATE INDEX purchase_transactions_review_queue_idx ON purchase_transactions ((COALESCE(review_at, created_at)), id) WHERE status = 'review'`);
    await queryRunner.query(`CREATE INDEX payouts_review_queue_idx ON payouts ((COALESCE(review_at, created_at)), id) WHERE status = 'needs_review'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX payouts_review_queue_idx`);
    await queryRunner.query(`DROP INDEX purchase_transactions_review_queue_idx`);
    await queryRunner.query(`DROP TABLE staff_audit_events`);
    await queryRunner.query(`DROP FUNCTION staff_audit_events_append_only()`);
    await queryRunner.query(`DROP TABLE staff_proposals`);
    await queryRunner.query(`DROP FUNCTION staff_proposals_guard()`);
    await queryRunner.query(`DROP TABLE staff_sessions`);
    await queryRunner.query(`DROP TABLE staff_users`);
  }
}
