import type { MigrationInterface, QueryRunner } from 'typeorm';

const EXCEPTION_KINDS_BEFORE = `'late_creation', 'amount_mismatch', 'reference_mismatch', 'status_conflict', 'unknown_line', 'missing_line'`;
const EXCEPTION_KINDS = `${EXCEPTION_KINDS_BEFORE}, 'paid_after_release', 'reversed_after_correction', 'duplicate_line', 'line_withdrawn'`;

/**
 * Corrections after the fact are ledger entries, never edits (issue 26, docs/RECONCILIATION.md):
 *
 * - `resettle`: the provider proved that a payout we released (failed) was paid after all; its
 *   amount + fee leave `available` again. Automatic, from the provider's proof.
 * - `adjust_debit` / `adjust_credit`: a correction of `available` by a person (recovered from or
 *   repaid to the vendor), from an exception or an approved proposal.
 *
 * Each correction names its reason and the exception or proposal it comes from, and who approved
 * it (NULL when automatic). `available` may now go below zero: that is the vendor's debt, which
 * only a correction debit can cause, as far as the account's correction debits reach (CHECK); the
 * reserve guard still refuses any payout it does not cover. `reserved` stays non-negative.
 *
 * Reconciliation exceptions gain the kinds of the new disagreements, and `settlement_lines` the
 * time a re-issued report withdrew a line.
 */
export class LedgerCorrections1763782610000 implements MigrationInterface {
  name = 'LedgerCorrections1763782610000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE reconciliation_exceptions DROP CONSTRAINT reconciliation_exceptions_kind_check`);
    await queryRunner.query(`ALTER TABLE reconciliation_exceptions ADD CONSTRAINT reconciliation_exceptions_kind_check CHECK (kind IN (${EXCEPTION_KINDS}))`);

    await queryRunner.query(`
      ALTER TABLE ledger_entries
        ADD COLUMN reason text NULL,
        ADD COLUMN exception_id uuid NULL REFERENCES reconciliation_exceptions(id),
        ADD COLUMN proposal_id uuid NULL REFERENCES staff_proposals(id),
        ADD COLUMN approved_by text NULL`);
    await queryRunner.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check`);
    await queryRunner.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_effect`);
    await queryRunner.query(`
      ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
        CHECK (kind IN ('fund', 'reserve', 'settle', 'release', 'reverse', 'resettle', 'adjust_debit', 'adjust_credit'))`);
    await queryRunner.query(`
      ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_effect CHECK (
        (kind = 'fund' AND available_delta_cents = amount_cents AND reserved_delta_cents = 0 AND payout_id IS NULL)
        OR (kind = 'reserve' AND available_delta_cents = -amount_cents AND reserved_delta_cents = amount_cents AND payout_id IS NOT NULL)
        OR (kind = 'settle' AND available_delta_cents = 0 AND reserved_delta_cents = -amount_cents AND payout_id IS NOT NULL)
        OR (kind = 'release' AND available_delta_cents = amount_cents AND reserved_delta_cents = -amount_cents AND payout_id IS NOT NULL)
        OR (kind = 'reverse' AND available_delta_cents = amount_cents AND reserved_delta_cents = 0 AND payout_id IS NOT NULL)
        OR (kind = 'resettle' AND available_delta_cents = -amount_cents AND reserved_delta_cents = 0 AND payout_id IS NOT NULL)
        OR (kind = 'adjust_debit' AND available_delta_cents = -amount_cents AND reserved_delta_cents = 0)
        OR (kind = 'adjust_credit' AND available_delta_cents = amount_cents AND reserved_delta_cents = 0)
      )`);
    // A correction says why and where it comes from; the movements of a payout's life need neither.
    await queryRunner.query(`
      ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_correction_sourced CHECK (
        kind NOT IN ('resettle', 'adjust_debit', 'adjust_credit')
        OR (reason IS NOT NULL AND (exception_id IS NOT NULL OR proposal_id IS NOT NULL))
      )`);
    // One of each life movement per payout (as before); adjustments may repeat per payout, but one per kind per exception and per proposal.
    await queryRunner.query(`DROP INDEX ledger_entries_payout_kind_key`);
    await queryRunner.query(`
      CREATE UNIQUE INDEX ledger_entries_payout_kind_key ON ledger_entries (payout_id, kind)
        WHERE payout_id IS NOT NULL AND kind NOT IN ('adjust_debit', 'adjust_credit')`);
    await queryRunner.query(`CREATE UNIQUE INDEX ledger_entries_exception_kind_key ON ledger_entries (exception_id, kind) WHERE exception_id IS NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX ledger_entries_proposal_kind_key ON ledger_entries (proposal_id, kind) WHERE proposal_id IS NOT NULL`);

    // A debt is a negative `available`, and only correction debits may make it: the account
    // counts them (`correction_debits_cents`, raised in the statement that writes each resettle or
    // adjust_debit entry), and the CHECK, still the last line of defence, allows `available` below
    // zero only by that much. A direct write cannot overdraw an account; `reserved` never goes below zero.
    await queryRunner.query(`ALTER TABLE payout_accounts ADD COLUMN correction_debits_cents bigint NOT NULL DEFAULT 0 CHECK (correction_debits_cents >= 0)`);
    await queryRunner.query(`ALTER TABLE payout_accounts DROP CONSTRAINT payout_accounts_balances_non_negative`);
    await queryRunner.query(`
      ALTER TABLE payout_accounts ADD CONSTRAINT payout_accounts_balances_non_negative
        CHECK (available_cents + correction_debits_cents >= 0 AND reserved_cents >= 0)`);

    await queryRunner.query(`ALTER TABLE settlement_lines ADD COLUMN withdrawn_at timestamptz NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE settlement_lines DROP COLUMN withdrawn_at`);
    await queryRunner.query(`ALTER TABLE payout_accounts DROP CONSTRAINT payout_accounts_balances_non_negative`);
    await queryRunner.query(`ALTER TABLE payout_accounts ADD CONSTRAINT payout_accounts_balances_non_negative CHECK (available_cents >= 0 AND reserved_cents >= 0)`);
    await queryRunner.query(`ALTER TABLE payout_accounts DROP COLUMN correction_debits_cents`);
    await queryRunner.query(`DROP INDEX ledger_entries_proposal_kind_key`);
    await queryRunner.query(`DROP INDEX ledger_entries_exception_kind_key`);
    await queryRunner.query(`DROP INDEX ledger_entries_payout_kind_key`);
    await queryRunner.query(`CREATE UNIQUE INDEX ledger_entries_payout_kind_key ON ledger_entries (payout_id, kind) WHERE payout_id IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_correction_sourced`);
    await queryRunner.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_effect`);
    await queryRunner.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check`);
    await queryRunner.query(`
      ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('fund', 'reserve', 'settle', 'release', 'reverse'))`);
    await queryRunner.query(`
      ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_effect CHECK (
        (kind = 'fund' AND available_delta_cents = amount_cents AND reserved_delta_cents = 0 AND payout_id IS NULL)
        OR (kind = 'reserve' AND available_delta_cents = -amount_cents AND reserved_delta_cents = amount_cents AND payout_id IS NOT NULL)
        OR (kind = 'settle' AND available_delta_cents = 0 AND reserved_delta_cents = -amount_cents AND payout_id IS NOT NULL)
        OR (kind = 'release' AND available_delta_cents = amount_cents AND reserved_delta_cents = -amount_cents AND payout_id IS NOT NULL)
        OR (kind = 'reverse' AND available_delta_cents = amount_cents AND reserved_delta_cents = 0 AND payout_id IS NOT NULL)
      )`);
    await queryRunner.query(`ALTER TABLE ledger_entries DROP COLUMN approved_by, DROP COLUMN proposal_id, DROP COLUMN exception_id, DROP COLUMN reason`);
    await queryRunner.query(`ALTER TABLE reconciliation_exceptions DROP CONSTRAINT reconciliation_exceptions_kind_check`);
    await queryRunner.query(`ALTER TABLE reconciliation_exceptions ADD CONSTRAINT reconciliation_exceptions_kind_check CHECK (kind IN (${EXCEPTION_KINDS_BEFORE}))`);
  }
}
