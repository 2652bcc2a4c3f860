import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An owner may require two-step sign-in for the whole team (docs/DASHBOARD.md): one row per vendor
 * that has changed the setting; no row means not required.
 */
export class DashboardTeamTwoStep1763783300100 implements MigrationInterface {
  name = 'DashboardTeamTwoStep1763783300100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE dashboard_team_settings (
        vendor_id uuid PRIMARY KEY REFERENCES vendors(id),
        require_two_step boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE dashboard_team_settings`);
  }
}
