import type { MigrationInterface, QueryRunner } from 'typeorm';

export class PurchaseQuotesAndTransactions1763780100100 implements MigrationInterface {
  name = 'PurchaseQuotesAndTransactions1763780100100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE purchase_quotes (
        id uuid PRIMARY KEY,
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        product_id integer NOT NULL REFERENCES purchase_products(id),
        pricing_version_id integer NOT NULL REFERENCES purchase_pricing_versions(id),
        charge_cents bigint NOT NULL CHECK (charge_cents > 0),
        wholesale_cents bigint NOT NULL CHECK (wholesale_cents >= 0),
        currency text NOT NULL,
        destination_amount text NOT NULL,
        destination_unit text NOT NULL,
        benefits jsonb NOT NULL,
        budget_cents bigint NULL CHECK (budget_cents > 0),
        unused_budget_cents bigint NOT NULL DEFAULT 0 CHECK (unused_budget_cents >= 0),
        identifiers jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX purchase_quotes_vendor_idx ON purchase_quotes (vendor_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE purchase_transactions (
        id uuid PRIMARY KEY,
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        reference text NOT NULL,
        quote_id uuid NOT NULL REFERENCES purchase_quotes(id),
        product_id integer NOT NULL REFERENCES purchase_products(id),
        pricing_version_id integer NOT NULL REFERENCES purchase_pricing_versions(id),
        status text NOT NULL CHECK (status IN ('pending', 'completed', 'failed', 'reversed', 'review')),
        charge_cents bigint NOT NULL CHECK (charge_cents > 0),
        wholesale_cents bigint NOT NULL CHECK (wholesale_cents >= 0),
        currency text NOT NULL,
        destination_amount text NOT NULL,
        destination_unit text NOT NULL,
        identifiers jsonb NOT NULL,
        error_code text NULL,
        admission_day date NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz NULL,
        reversed_at timestamptz NULL,
        failed_at timestamptz NULL,
        review_at timestamptz NULL,
        allowance_returned_at timestamptz NULL,
        submission_attempted_at timestamptz NULL,
        submission_ended_at timestamptz NULL,
        submission_outcome text NULL,
        provider_transaction_id bigint NULL,
        provider_status text NULL,
        not_found_streak integer NOT NULL DEFAULT 0,
        check_seq integer NOT NULL DEFAULT 0,
        next_check_at timestamptz NULL,
        last_checked_at timestamptz NULL,
        reversal_watch_until timestamptz NULL,
        CONSTRAINT purchase_transactions_vendor_reference_key UNIQUE (vendor_id, reference),
        CONSTRAINT purchase_transactions_quote_key UNIQUE (quote_id)
      )`);
    await queryRunner.query(`CREATE INDEX purchase_transactions_vendor_created_idx ON purchase_transactions (vendor_id, created_at DESC, id)`);
    await queryRunner.query(`CREATE INDEX purchase_transactions_vendor_completed_idx ON purchase_transactions (vendor_id, completed_at) WHERE completed_at IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX purchase_transactions_provider_id_idx ON purchase_transactions (provider_transaction_id) WHERE provider_transaction_id IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX purchase_transactions_next_check_idx ON purchase_transactions (next_check_at) WHERE next_check_at IS NOT NULL`);

    // Status history: every verified move, for support and audit.
    await queryRunner.query(`
      CREATE TABLE purchase_transaction_events (
        id bigserial PRIMARY KEY,
        transaction_id uuid NOT NULL REFERENCES purchase_transactions(id),
        from_status text NULL,
        to_status text NOT NULL,
        provider_status text NULL,
        reason text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX purchase_transaction_events_tx_idx ON purchase_transaction_events (transaction_id)`);

    // Written in the same database transaction as the purchase; the FK is checked at commit.
    await queryRunner.query(`
      CREATE TABLE purchase_idempotency_keys (
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        idempotency_key text NOT NULL,
        quote_id uuid NOT NULL,
        reference text NOT NULL,
        transaction_id uuid NOT NULL REFERENCES purchase_transactions(id) DEFERRABLE INITIALLY DEFERRED,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (vendor_id, idempotency_key)
      )`);

    await queryRunner.query(`
      CREATE TABLE purchase_spend_controls (
        vendor_id uuid PRIMARY KEY REFERENCES vendors(id),
        daily_cap_cents bigint NULL CHECK (daily_cap_cents >= 0),
        transaction_max_cents bigint NULL CHECK (transaction_max_cents > 0),
        velocity_count integer NULL CHECK (velocity_count > 0),
        velocity_window_seconds integer NULL CHECK (velocity_window_seconds > 0),
        paused_at timestamptz NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE purchase_global_controls (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        paused_at timestamptz NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`INSERT INTO purchase_global_controls (id) VALUES (true)`);
    await queryRunner.query(`
      CREATE TABLE purchase_daily_allowances (
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        day date NOT NULL,
        used_cents bigint NOT NULL DEFAULT 0 CHECK (used_cents >= 0),
        PRIMARY KEY (vendor_id, day)
      )`);

    await queryRunner.query(`
      CREATE TABLE purchase_fulfilments (
        transaction_id uuid PRIMARY KEY REFERENCES purchase_transactions(id),
        kind text NOT NULL CHECK (kind IN ('pin', 'esim')),
        key_id text NOT NULL,
        sealed text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE purchase_fulfilment_reads (
        id bigserial PRIMARY KEY,
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        token_id uuid NOT NULL,
        transaction_id uuid NOT NULL REFERENCES purchase_transactions(id),
        read_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX purchase_fulfilment_reads_tx_idx ON purchase_fulfilment_reads (transaction_id)`);

    await queryRunner.query(`
      CREATE TABLE purchase_callback_markers (
        id bigserial PRIMARY KEY,
        transaction_id uuid NOT NULL REFERENCES purchase_transactions(id),
        provider_status_hint text NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        processed_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX purchase_callback_markers_open_idx ON purchase_callback_markers (transaction_id) WHERE processed_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'purchase_callback_markers',
      'purchase_fulfilment_reads',
      'purchase_fulfilments',
      'purchase_daily_allowances',
      'purchase_global_controls',
      'purchase_spend_controls',
      'purchase_idempotency_keys',
      'purchase_transaction_events',
      'purchase_transactions',
      'purchase_quotes',
    ]) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
  }
}
