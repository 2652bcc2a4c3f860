import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Room on each page for the updates a purchase gets within seconds of its insert.
 *
 * A purchase row is written five times on its way to `completed` (admission, lease, attempt,
 * outcome, recording) and its callback marker three (insert, claim, answer). An update that
 * changes no indexed column (the submission lease's `submission_claimed_until`, a marker claim's
 * `claimed_until`) can be a heap-only tuple (HOT): the new version stays on the page and no index
 * gets an entry, where otherwise each of purchase_transactions' indexes gets one. HOT needs free
 * space on the row's own page, and at the default fillfactor (100) inserts leave none. Pages
 * written from now on keep 20 % free; existing pages are unchanged (no table rewrite, no lock
 * beyond the ALTER's brief one). The price is a table about a fifth larger.
 */
export class PurchaseHotUpdates1763784000200 implements MigrationInterface {
  name = 'PurchaseHotUpdates1763784000200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE purchase_transactions SET (fillfactor = 80)`);
    await queryRunner.query(`ALTER TABLE purchase_callback_markers SET (fillfactor = 80)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE purchase_callback_markers RESET (fillfactor)`);
    await queryRunner.query(`ALTER TABLE purchase_transactions RESET (fillfactor)`);
  }
}
