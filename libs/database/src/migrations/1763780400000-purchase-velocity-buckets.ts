import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Velocity without counting a vendor's purchases under its lock.
 *
 * Admission checked "at most N purchases in any rolling window of W seconds" with a count of the
 * vendor's purchases inside the window, while holding the vendor's spend-controls lock. That
 * count visits every purchase in the window (heap fetches too: recent rows are not yet
 * all-visible), so its cost grew with the vendor's own rate: 1.1-3.0 ms per admission at a few
 * thousand purchases per window in the benchmark, the most expensive statement of the admission,
 * and paid while the vendor's other admissions wait (docs/BENCHMARKS.md).
 *
 * Now a trigger keeps one counter row per vendor and second of admission. The rolling count is
 * the sum of the whole seconds inside the window plus an exact count of the purchases in the one
 * partial second at its start (SpendControlsService.checkVelocity), so the answer is the same as
 * before, in at most W small rows and a one-second index range. The trigger (not the admission
 * code) maintains the counters so that every writer of purchase_transactions, including an older
 * release during a rolling deployment, keeps them right; the backfill covers the last seven days,
 * the longest window spend controls accept, and the purchase sweeper drops older counters.
 */
export class PurchaseVelocityBuckets1763780400000 implements MigrationInterface {
  name = 'PurchaseVelocityBuckets1763780400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE purchase_velocity_buckets (
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        second bigint NOT NULL,
        admissions integer NOT NULL CHECK (admissions > 0),
        PRIMARY KEY (vendor_id, second)
      )`);
    // Pruning by age (PurchaseSweeper); seconds grow with insertion order, which suits BRIN.
    await queryRunner.query(`CREATE INDEX purchase_velocity_buckets_second_brin ON purchase_velocity_buckets USING brin (second)`);
    await queryRunner.query(`
      CREATE FUNCTION purchase_velocity_bump() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO purchase_velocity_buckets AS b (vendor_id, second, admissions)
        VALUES (NEW.vendor_id, floor(extract(epoch FROM NEW.created_at))::bigint, 1)
        ON CONFLICT (vendor_id, second) DO UPDATE SET admissions = b.admissions + 1;
        RETURN NULL;
      END $$`);
    // Blocks admissions for the duration of the backfill only, so no purchase is missed in between.
    await queryRunner.query(`LOCK TABLE purchase_transactions IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `CREATE TRIGGER purchase_transactions_velocity AFTER INSERT ON purchase_transactions FOR EACH ROW EXECUTE FUNCTION purchase_velocity_bump()`,
    );
    await queryRunner.query(`
      INSERT INTO purchase_velocity_buckets (vendor_id, second, admissions)
      SELECT vendor_id, floor(extract(epoch FROM created_at))::bigint, count(*)
        FROM purchase_transactions WHERE created_at > now() - interval '7 days 1 minute'
       GROUP BY 1, 2`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER purchase_transactions_velocity ON purchase_transactions`);
    await queryRunner.query(`DROP FUNCTION purchase_velocity_bump()`);
    await queryRunner.query(`DROP TABLE purchase_velocity_buckets`);
  }
}
