import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Vendor dashboard (docs/DASHBOARD.md): users of one vendor with a role, one-time invites,
 * server-side sessions and an append-only audit log; API tokens gain a name, the dashboard
 * user who created them and when they were last used.
 */
export class DashboardAccounts1763780900000 implements MigrationInterface {
  name = 'DashboardAccounts1763780900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE dashboard_users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        email text NOT NULL CHECK (email = lower(email)),
        role text NOT NULL CHECK (role IN ('owner', 'developer', 'finance', 'viewer')),
        password_hash text NOT NULL,
        totp_secret_ciphertext text NULL,
        -- The last TOTP time step accepted: a code is never accepted twice (RFC 6238 section 5.2).
        totp_last_step bigint NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        removed_at timestamptz NULL
      )`);
    // Sign-in is by email alone, so an email belongs to at most one active user across vendors.
    await queryRunner.query(`CREATE UNIQUE INDEX dashboard_users_active_email_idx ON dashboard_users (email) WHERE removed_at IS NULL`);
    await queryRunner.query(`CREATE INDEX dashboard_users_vendor_id_idx ON dashboard_users (vendor_id)`);

    await queryRunner.query(`
      CREATE TABLE dashboard_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash char(64) NOT NULL UNIQUE,
        user_id uuid NOT NULL REFERENCES dashboard_users(id),
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        csrf_token text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX dashboard_sessions_user_id_idx ON dashboard_sessions (user_id) WHERE revoked_at IS NULL`);

    await queryRunner.query(`
      CREATE TABLE dashboard_invites (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        email text NOT NULL CHECK (email = lower(email)),
        role text NOT NULL CHECK (role IN ('owner', 'developer', 'finance', 'viewer')),
        token_hash char(64) NOT NULL UNIQUE,
        invited_by_user_id uuid NULL REFERENCES dashboard_users(id),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz NULL,
        revoked_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX dashboard_invites_vendor_id_idx ON dashboard_invites (vendor_id)`);

    await queryRunner.query(`
      CREATE TABLE dashboard_audit_events (
        id bigserial PRIMARY KEY,
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        actor_user_id uuid NULL REFERENCES dashboard_users(id),
        actor text NOT NULL,
        action text NOT NULL,
        subject text NULL,
        details jsonb NOT NULL DEFAULT '{}',
        address text NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX dashboard_audit_events_vendor_idx ON dashboard_audit_events (vendor_id, id DESC)`);
    // Append-only in the database itself, not only by convention in the code.
    await queryRunner.query(`
      CREATE FUNCTION dashboard_audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'dashboard_audit_events is append-only';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER dashboard_audit_events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON dashboard_audit_events
        FOR EACH STATEMENT EXECUTE FUNCTION dashboard_audit_events_append_only()`);

    await queryRunner.query(`ALTER TABLE api_tokens ADD COLUMN name text NULL`);
    await queryRunner.query(`ALTER TABLE api_tokens ADD COLUMN created_by_user_id uuid NULL REFERENCES dashboard_users(id)`);
    await queryRunner.query(`ALTER TABLE api_tokens ADD COLUMN last_used_at timestamptz NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE api_tokens DROP COLUMN last_used_at`);
    await queryRunner.query(`ALTER TABLE api_tokens DROP COLUMN created_by_user_id`);
    await queryRunner.query(`ALTER TABLE api_tokens DROP COLUMN name`);
    await queryRunner.query(`DROP TABLE dashboard_audit_events`);
    await queryRunner.query(`DROP FUNCTION dashboard_audit_events_append_only()`);
    await queryRunner.query(`DROP TABLE dashboard_invites`);
    await queryRunner.query(`DROP TABLE dashboard_sessions`);
    await queryRunner.query(`DROP TABLE dashboard_users`);
  }
}
