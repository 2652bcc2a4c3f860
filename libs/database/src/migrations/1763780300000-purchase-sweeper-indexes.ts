import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The worker's sweeper looks, every PURCHASE_SWEEP_INTERVAL_MS, for purchases admitted but never
 * submitted whose outbox row is no longer waiting (the job was lost). Measured by the benchmark
 * (docs/BENCHMARKS.md) without these indexes:
 * - the candidates were a sequential scan of every purchase ever made (34 ms at 60 000 rows,
 *   linear in the table);
 * - the "no waiting outbox row" test scanned every undispatched outbox row once per candidate:
 *   42 s with a backlog of 28 000 admitted purchases, past the 15 s statement timeout.
 * With them, both are index lookups over the waiting work only.
 */
export class PurchaseSweeperIndexes1763780300000 implements MigrationInterface {
  name = 'PurchaseSweeperIndexes1763780300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX purchase_transactions_unsubmitted_idx ON purchase_transactions (created_at)
        WHERE status = 'pending' AND submission_attempted_at IS NULL AND provider_transaction_id IS NULL`,
    );
    await queryRunner.query(`CREATE INDEX outbox_messages_pending_job_idx ON outbox_messages (job_id) WHERE dispatched_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX outbox_messages_pending_job_idx`);
    await queryRunner.query(`DROP INDEX purchase_transactions_unsubmitted_idx`);
  }
}
