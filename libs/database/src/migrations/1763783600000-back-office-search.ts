import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The back-office's search box finds a purchase, payout or batch by its reference (or its start)
 * across vendors. The tables' unique indexes lead with vendor_id, so without these a search would
 * read every row; `text_pattern_ops` lets `reference LIKE 'abc%'` use the index whatever the
 * database's collation (docs/BACK-OFFICE.md, "Search").
 */
export class BackOfficeSearch1763783600000 implements MigrationInterface {
  name = 'BackOfficeSearch1763783600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX purchase_transactions_reference_search_idx ON purchase_transactions (reference text_pattern_ops)`);
    await queryRunner.query(`CREATE INDEX payouts_reference_search_idx ON payouts (reference text_pattern_ops)`);
    await queryRunner.query(`CREATE INDEX payout_batches_reference_search_idx ON payout_batches (reference text_pattern_ops)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX payout_batches_reference_search_idx`);
    await queryRunner.query(`DROP INDEX payouts_reference_search_idx`);
    await queryRunner.query(`DROP INDEX purchase_transactions_reference_search_idx`);
  }
}
