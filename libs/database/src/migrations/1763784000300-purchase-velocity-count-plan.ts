import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The velocity count's one query, as migration 1763781500000 defined it. */
const COUNT = `SELECT (SELECT COALESCE(sum(b.admissions), 0) FROM purchase_velocity_buckets b
                 WHERE b.vendor_id = p_vendor AND b.second > floor(extract(epoch FROM p_start))::bigint)
             + (SELECT count(*) FROM purchase_transactions t
                 WHERE t.vendor_id = p_vendor AND t.created_at > p_start
                   AND t.created_at < to_timestamp((floor(extract(epoch FROM p_start)) + 1)::double precision))`;

/**
 * purchase_admissions_since, the admission's velocity count, keeps its query and its answer but
 * becomes PL/pgSQL, so its plan is kept for the session.
 *
 * As a SQL function it could not be inlined into its caller (its body holds subqueries), and
 * PostgreSQL parses, analyses and plans a SQL function that is not inlined again in every
 * transaction that calls it, which is every admission. Measured with `perf` during the sustained
 * benchmark (250 purchases a second arriving), that planning was 15 % of PostgreSQL's CPU; called
 * in a loop on one connection, the SQL function took 0.21-0.26 ms a call and the PL/pgSQL one
 * 0.06 ms. PL/pgSQL prepares the query once per session (a generic plan once it is no dearer),
 * and as a STABLE function it reads with its caller's snapshot, as the SQL function did, so the
 * admission still counts every admission committed before it took the vendor's controls lock.
 */
export class PurchaseVelocityCountPlan1763784000300 implements MigrationInterface {
  name = 'PurchaseVelocityCountPlan1763784000300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION purchase_admissions_since(p_vendor uuid, p_start timestamptz) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
      BEGIN
        RETURN (${COUNT});
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION purchase_admissions_since(p_vendor uuid, p_start timestamptz) RETURNS bigint LANGUAGE sql STABLE AS $$
        ${COUNT}
      $$`);
  }
}
