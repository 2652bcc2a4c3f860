import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The velocity count's one query, as migration 1763781500000 defined it. */
const COUNT = `SELECT (SELECT COALESCE(sum(b.admissions), 0) FROM purchase_velocity_buckets b
                 WHERE b.vendor_id = p_vendor AND b.second > floor(extract(epoch FROM p_start))::bigint)
             + (SELECT count(*) FROM purchase_transactions t
                 WHERE t.vendor_id = p_vendor AND t.created_at > p_start
                   AND t.created_at < to_timestamp((floor(extract(epoch FROM p_start)) + 1)::double precision))`;

/**
 * purchase_admissions_since, the admission's velocity count, keeps its query and its answer but
 * becomes PL/pgSQL planned on every call.
 *
 * As a SQL function it could not be inlined into its caller (its body holds subqueries), and
 * PostgreSQL parses, analyses and plans a SQL function that is not inlined again in every
 * transaction that calls it, which is every admission. Measured with `perf` during the sustained
 * benchmark (250 purchases a second arriving), that was 15 % of PostgreSQL's CPU. PL/pgSQL parses
 * and analyses the query once per session.
 *
 * It is still planned on every call (`plan_cache_mode = force_custom_plan`), on purpose. Left to
 * itself, PL/pgSQL switches to a generic plan after a few calls and keeps it for the life of the
 * connection, and that plan is made for the table as it was then. Made while purchase_transactions
 * was small, it was a sequential scan, or (with sequential scans disabled) the index on
 * (vendor_id, reference) with the time range as a filter: either way each count then read all the
 * vendor's purchases (in the benchmark 1,031 buffers and 2.5 ms a call after 17,500 purchases,
 * under the vendor's lock) until an ANALYZE replaced the plan. A plan made for each call sees the
 * table as it is and takes purchase_transactions_vendor_created_idx. Called in a loop on one
 * connection against 17,500 purchases: 0.22-0.26 ms a call as the SQL function, 0.16 ms as this
 * (0.06 ms with the generic plan that does not scale).
 *
 * As a STABLE function it reads with its caller's snapshot, as the SQL function did, so the
 * admission still counts every admission committed before it took the vendor's controls lock.
 */
export class PurchaseVelocityCountPlan1763784000300 implements MigrationInterface {
  name = 'PurchaseVelocityCountPlan1763784000300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION purchase_admissions_since(p_vendor uuid, p_start timestamptz) RETURNS bigint LANGUAGE plpgsql STABLE
        SET plan_cache_mode = force_custom_plan AS $$
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
