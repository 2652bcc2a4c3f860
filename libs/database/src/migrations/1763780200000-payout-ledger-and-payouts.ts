import type { MigrationInterface, QueryRunner } from 'typeorm';

const METHODS = `('bank_a_instant_money', 'bank_b_cardless', 'rtc_eft', 'voucher_type_1', 'voucher_type_2', 'voucher_type_3', 'voucher_type_4')`;

/**
 * The payout side: the prefunded account as a ledger (balances plus append-only entries),
 * per-vendor methods, payouts, batches, and the audit trails of delivery reads and SMS resends.
 */
export class PayoutLedgerAndPayouts1763780200000 implements MigrationInterface {
  name = 'PayoutLedgerAndPayouts1763780200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Balances are updated in the same transaction as the entry that moves them, with guarded
    // updates; the CHECK is the last line of defence against a negative balance.
    await queryRunner.query(`
      CREATE TABLE payout_accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        vendor_id uuid NOT NULL UNIQUE REFERENCES vendors(id),
        available_cents bigint NOT NULL DEFAULT 0,
        reserved_cents bigint NOT NULL DEFAULT 0,
        fee_per_payout_cents bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT payout_accounts_balances_non_negative CHECK (available_cents >= 0 AND reserved_cents >= 0),
        CONSTRAINT payout_accounts_fee_non_negative CHECK (fee_per_payout_cents >= 0)
      )`);

    await queryRunner.query(`
      CREATE TABLE payout_vendor_methods (
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        method text NOT NULL CHECK (method IN ${METHODS}),
        enabled boolean NOT NULL DEFAULT false,
        fee_cents bigint NULL CHECK (fee_cents >= 0),
        minimum_cents bigint NULL CHECK (minimum_cents > 0),
        maximum_cents bigint NULL CHECK (maximum_cents > 0),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (vendor_id, method),
        CONSTRAINT payout_vendor_methods_limits_ordered CHECK (minimum_cents IS NULL OR maximum_cents IS NULL OR minimum_cents <= maximum_cents)
      )`);

    await queryRunner.query(`
      CREATE TABLE payout_batches (
        id uuid PRIMARY KEY,
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        reference text NOT NULL,
        request_fingerprint char(64) NOT NULL,
        item_count integer NOT NULL CHECK (item_count BETWEEN 1 AND 500),
        total_amount_cents bigint NOT NULL CHECK (total_amount_cents > 0),
        total_fee_cents bigint NOT NULL CHECK (total_fee_cents >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT payout_batches_vendor_reference_key UNIQUE (vendor_id, reference)
      )`);

    // The recipient (identity, phone, bank account, date of birth) is stored encrypted; metadata
    // is the vendor's own and echoed as sent.
    await queryRunner.query(`
      CREATE TABLE payouts (
        id uuid PRIMARY KEY,
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        reference text NOT NULL,
        batch_id uuid NULL REFERENCES payout_batches(id),
        batch_position integer NULL,
        method text NOT NULL CHECK (method IN ${METHODS}),
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
        currency char(3) NOT NULL DEFAULT 'ZAR' CHECK (currency = 'ZAR'),
        status text NOT NULL CHECK (status IN ('pending', 'paid', 'failed', 'reversed', 'needs_review', 'cancelled')),
        status_reason text NULL,
        merchant_reference text NOT NULL UNIQUE,
        provider_reference text NULL,
        recipient_encrypted text NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        request_fingerprint char(64) NOT NULL,
        delivery_encrypted text NULL,
        submission_started_at timestamptz NULL,
        submission_answered_at timestamptz NULL,
        poll_count integer NOT NULL DEFAULT 0,
        next_poll_at timestamptz NULL,
        last_checked_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        paid_at timestamptz NULL,
        failed_at timestamptz NULL,
        reversed_at timestamptz NULL,
        review_at timestamptz NULL,
        CONSTRAINT payouts_vendor_reference_key UNIQUE (vendor_id, reference)
      )`);
    await queryRunner.query(`CREATE INDEX payouts_batch_idx ON payouts (batch_id, batch_position) WHERE batch_id IS NOT NULL`);
    // The sweeper scans only live work: scheduled polls and batch items not yet submitted.
    await queryRunner.query(`CREATE INDEX payouts_next_poll_idx ON payouts (next_poll_at) WHERE next_poll_at IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX payouts_unsubmitted_idx ON payouts (created_at) WHERE status = 'pending' AND submission_started_at IS NULL`);

    // Each kind has a fixed effect on the two balances, so the balances always equal the sums of the deltas.
    await queryRunner.query(`
      CREATE TABLE ledger_entries (
        id bigserial PRIMARY KEY,
        vendor_id uuid NOT NULL REFERENCES payout_accounts(vendor_id),
        kind text NOT NULL CHECK (kind IN ('fund', 'reserve', 'settle', 'release', 'reverse')),
        amount_cents bigint NOT NULL CHECK (amount_cents > 0),
        available_delta_cents bigint NOT NULL,
        reserved_delta_cents bigint NOT NULL,
        payout_id uuid NULL REFERENCES payouts(id),
        note text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT ledger_entries_kind_effect CHECK (
          (kind = 'fund' AND available_delta_cents = amount_cents AND reserved_delta_cents = 0 AND payout_id IS NULL)
          OR (kind = 'reserve' AND available_delta_cents = -amount_cents AND reserved_delta_cents = amount_cents AND payout_id IS NOT NULL)
          OR (kind = 'settle' AND available_delta_cents = 0 AND reserved_delta_cents = -amount_cents AND payout_id IS NOT NULL)
          OR (kind = 'release' AND available_delta_cents = amount_cents AND reserved_delta_cents = -amount_cents AND payout_id IS NOT NULL)
          OR (kind = 'reverse' AND available_delta_cents = amount_cents AND reserved_delta_cents = 0 AND payout_id IS NOT NULL)
        )
      )`);
    // A payout is reserved, settled, released or reversed at most once, whatever the code does.
    await queryRunner.query(`CREATE UNIQUE INDEX ledger_entries_payout_kind_key ON ledger_entries (payout_id, kind) WHERE payout_id IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX ledger_entries_vendor_idx ON ledger_entries (vendor_id, id)`);
    await queryRunner.query(`
      CREATE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'ledger_entries is append-only';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
        FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only()`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
        FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_append_only()`);

    await queryRunner.query(`
      CREATE TABLE payout_delivery_reads (
        id bigserial PRIMARY KEY,
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        payout_id uuid NOT NULL REFERENCES payouts(id),
        token_id uuid NOT NULL REFERENCES api_tokens(id),
        channel text NOT NULL CHECK (channel IN ('delivery_endpoint', 'payout_response', 'batch_response')),
        read_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX payout_delivery_reads_payout_idx ON payout_delivery_reads (payout_id, read_at)`);

    await queryRunner.query(`
      CREATE TABLE payout_sms_resends (
        id bigserial PRIMARY KEY,
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        payout_id uuid NOT NULL REFERENCES payouts(id),
        token_id uuid NOT NULL REFERENCES api_tokens(id),
        outcome text NOT NULL CHECK (outcome IN ('sent', 'rate_limited', 'provider_refused', 'provider_unavailable')),
        cooldown_until timestamptz NULL,
        requested_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX payout_sms_resends_payout_idx ON payout_sms_resends (payout_id, requested_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE payout_sms_resends`);
    await queryRunner.query(`DROP TABLE payout_delivery_reads`);
    await queryRunner.query(`DROP TABLE ledger_entries`);
    await queryRunner.query(`DROP FUNCTION ledger_entries_append_only()`);
    await queryRunner.query(`DROP TABLE payouts`);
    await queryRunner.query(`DROP TABLE payout_batches`);
    await queryRunner.query(`DROP TABLE payout_vendor_methods`);
    await queryRunner.query(`DROP TABLE payout_accounts`);
  }
}
