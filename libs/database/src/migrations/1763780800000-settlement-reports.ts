import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Provider settlement reports and their lines (docs/RECONCILIATION.md). One report per provider
 * and Johannesburg day: ingesting it again updates the fetch facts and adds only lines not seen
 * before (a line's key is the hash of its content), so re-ingestion moves nothing twice.
 *
 * Every line ends matched, applied (the report proved an outcome we then recorded) or an
 * exception; `match_result` stays NULL only while the ingestion that stored it is running.
 */
export class SettlementReports1763780800000 implements MigrationInterface {
  name = 'SettlementReports1763780800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE settlement_reports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        provider text NOT NULL,
        report_date date NOT NULL,
        fetched_at timestamptz NOT NULL DEFAULT now(),
        line_count integer NOT NULL CHECK (line_count >= 0),
        checksum char(64) NOT NULL,
        reconciled_at timestamptz NULL,
        CONSTRAINT settlement_reports_provider_date_key UNIQUE (provider, report_date)
      )`);
    await queryRunner.query(`
      CREATE TABLE settlement_lines (
        id bigserial PRIMARY KEY,
        report_id uuid NOT NULL REFERENCES settlement_reports(id),
        line_key char(64) NOT NULL,
        domain text NOT NULL CHECK (domain IN ('purchase', 'payout')),
        provider_reference text NOT NULL,
        merchant_reference text NOT NULL,
        amount_cents bigint NOT NULL CHECK (amount_cents >= 0),
        currency text NOT NULL,
        status text NOT NULL CHECK (status IN ('settled', 'reversed')),
        line jsonb NOT NULL,
        match_result text NULL CHECK (match_result IN ('matched', 'applied', 'exception')),
        purchase_transaction_id uuid NULL REFERENCES purchase_transactions(id),
        payout_id uuid NULL REFERENCES payouts(id),
        exception_id uuid NULL REFERENCES reconciliation_exceptions(id),
        received_at timestamptz NOT NULL DEFAULT now(),
        matched_at timestamptz NULL,
        CONSTRAINT settlement_lines_report_key UNIQUE (report_id, line_key),
        CONSTRAINT settlement_lines_exception_named CHECK ((match_result = 'exception') = (exception_id IS NOT NULL)),
        CONSTRAINT settlement_lines_matched_at_set CHECK ((match_result IS NULL) = (matched_at IS NULL))
      )`);
    await queryRunner.query(`CREATE INDEX settlement_lines_purchase_idx ON settlement_lines (purchase_transaction_id) WHERE purchase_transaction_id IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX settlement_lines_payout_idx ON settlement_lines (payout_id) WHERE payout_id IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX settlement_lines_unmatched_idx ON settlement_lines (report_id) WHERE match_result IS NULL`);
    // The missing-line check looks for records closed on one day; these keep it off a full scan.
    await queryRunner.query(`CREATE INDEX purchase_transactions_completed_at_idx ON purchase_transactions (completed_at) WHERE completed_at IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX payouts_paid_at_idx ON payouts (paid_at) WHERE paid_at IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX payouts_paid_at_idx`);
    await queryRunner.query(`DROP INDEX purchase_transactions_completed_at_idx`);
    await queryRunner.query(`DROP TABLE settlement_lines`);
    await queryRunner.query(`DROP TABLE settlement_reports`);
  }
}
