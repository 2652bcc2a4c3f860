import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * "Forgot password" for dashboard users (docs/DASHBOARD.md): a mailed, time-limited, single-use
 * link. The link's secret is never stored, only its SHA-256 hash, like invites and sessions.
 */
export class DashboardPasswordResets1763783300000 implements MigrationInterface {
  name = 'DashboardPasswordResets1763783300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE dashboard_password_resets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES dashboard_users(id),
        token_hash char(64) NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX dashboard_password_resets_user_id_idx ON dashboard_password_resets (user_id) WHERE used_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE dashboard_password_resets`);
  }
}
