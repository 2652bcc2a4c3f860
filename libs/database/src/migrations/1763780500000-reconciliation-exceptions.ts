import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reconciliation exceptions: every disagreement between our records and what a provider says
 * (a settlement report line, or a lookup of a purchase we had already closed) that the system
 * cannot resolve on its own. Staff work through the open ones; nothing here moves money.
 *
 * `dedupe_key` makes raising idempotent: a report ingested twice, or a callback and a report
 * telling the same story, leave one exception.
 */
export class ReconciliationExceptions1763780500000 implements MigrationInterface {
  name = 'ReconciliationExceptions1763780500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE reconciliation_exceptions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        domain text NOT NULL CHECK (domain IN ('purchase', 'payout')),
        kind text NOT NULL CHECK (kind IN ('late_creation', 'amount_mismatch', 'reference_mismatch', 'status_conflict', 'unknown_line', 'missing_line')),
        dedupe_key text NOT NULL UNIQUE,
        vendor_id uuid NULL REFERENCES vendors(id),
        purchase_transaction_id uuid NULL,
        payout_id uuid NULL,
        provider text NULL,
        report_date date NULL,
        details jsonb NOT NULL DEFAULT '{}'::jsonb,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
        raised_at timestamptz NOT NULL DEFAULT now(),
        resolved_at timestamptz NULL,
        resolved_by text NULL,
        resolution text NULL,
        CHECK ((status = 'open') = (resolved_at IS NULL))
      )`);
    await queryRunner.query(`CREATE INDEX reconciliation_exceptions_open_idx ON reconciliation_exceptions (raised_at) WHERE status = 'open'`);
    await queryRunner.query(`CREATE INDEX reconciliation_exceptions_report_date_idx ON reconciliation_exceptions (report_date)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE reconciliation_exceptions`);
  }
}
