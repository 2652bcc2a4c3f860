import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A purchase's fulfilment (PIN, eSIM) can also be revealed by a dashboard user on an explicit
 * click; the read audit then names the user instead of a token. Exactly one of the two is set.
 */
export class DashboardFulfilmentReads1763780900100 implements MigrationInterface {
  name = 'DashboardFulfilmentReads1763780900100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE purchase_fulfilment_reads ADD COLUMN dashboard_user_id uuid NULL REFERENCES dashboard_users(id)`);
    await queryRunner.query(`ALTER TABLE purchase_fulfilment_reads ALTER COLUMN token_id DROP NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE purchase_fulfilment_reads ADD CONSTRAINT purchase_fulfilment_reads_one_reader CHECK ((token_id IS NULL) <> (dashboard_user_id IS NULL))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM purchase_fulfilment_reads WHERE token_id IS NULL`);
    await queryRunner.query(`ALTER TABLE purchase_fulfilment_reads DROP CONSTRAINT purchase_fulfilment_reads_one_reader`);
    await queryRunner.query(`ALTER TABLE purchase_fulfilment_reads ALTER COLUMN token_id SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE purchase_fulfilment_reads DROP COLUMN dashboard_user_id`);
  }
}
