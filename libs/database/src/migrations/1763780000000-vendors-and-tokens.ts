import type { MigrationInterface, QueryRunner } from 'typeorm';

export class VendorsAndTokens1763780000000 implements MigrationInterface {
  name = 'VendorsAndTokens1763780000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pgcrypto`);
    await queryRunner.query(`
      CREATE TABLE vendors (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        slug text NOT NULL UNIQUE,
        enabled_abilities text[] NOT NULL DEFAULT '{}',
        production_released_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE api_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        token_hash char(64) NOT NULL UNIQUE,
        token_prefix text NOT NULL,
        abilities text[] NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX api_tokens_vendor_id_idx ON api_tokens (vendor_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE api_tokens`);
    await queryRunner.query(`DROP TABLE vendors`);
  }
}
