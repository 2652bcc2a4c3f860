import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every provider-day is closed (issue 26, docs/RECONCILIATION.md "Closing a day"):
 *
 * - `settlement_days`: one row per provider and Johannesburg day whose report we expect, with its
 *   fetch deadline, attempts, when it was fetched, the `missing_report` exception raised when the
 *   deadline passed without it, and when the day closed;
 * - `payout_daily_balances`: per vendor and closed day, the payout account's opening and closing
 *   balances and the day's movements by kind, written once when the day's payout provider-days
 *   are all closed;
 * - `purchase_daily_totals`: per vendor and closed day, the purchases charged and reversed that
 *   day, written once when the purchase provider's day closes;
 * - the `missing_report` reconciliation exception kind. The kind CHECK is rebuilt from the one in
 *   force plus the new kind, so kinds another migration added meanwhile are kept.
 */
export class SettlementDays1763783000000 implements MigrationInterface {
  name = 'SettlementDays1763783000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await changeExceptionKinds(queryRunner, (kinds) => [...new Set([...kinds, 'missing_report'])]);
    await queryRunner.query(`
      CREATE TABLE settlement_days (
        provider text NOT NULL,
        report_date date NOT NULL,
        deadline_at timestamptz NOT NULL,
        status text NOT NULL DEFAULT 'expected' CHECK (status IN ('expected', 'missing', 'fetched', 'closed')),
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        last_attempt_at timestamptz NULL,
        last_error text NULL,
        fetched_at timestamptz NULL,
        missing_exception_id uuid NULL REFERENCES reconciliation_exceptions(id),
        closed_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (provider, report_date),
        CONSTRAINT settlement_days_fetched_when_done CHECK ((status IN ('fetched', 'closed')) = (fetched_at IS NOT NULL)),
        CONSTRAINT settlement_days_closed_at CHECK ((status = 'closed') = (closed_at IS NOT NULL)),
        CONSTRAINT settlement_days_missing_named CHECK (status <> 'missing' OR missing_exception_id IS NOT NULL)
      )`);
    await queryRunner.query(`CREATE INDEX settlement_days_open_idx ON settlement_days (report_date) WHERE status <> 'closed'`);

    const cents = (column: string) => `${column} bigint NOT NULL`;
    await queryRunner.query(`
      CREATE TABLE payout_daily_balances (
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        balance_date date NOT NULL,
        ${cents('opening_available_cents')}, ${cents('opening_reserved_cents')},
        ${cents('funded_cents')}, ${cents('reserved_cents')}, ${cents('settled_amount_cents')}, ${cents('settled_fee_cents')},
        ${cents('released_cents')}, ${cents('reversed_cents')}, ${cents('resettled_cents')}, ${cents('adjusted_debit_cents')}, ${cents('adjusted_credit_cents')},
        ${cents('closing_available_cents')}, ${cents('closing_reserved_cents')},
        closed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (vendor_id, balance_date),
        CONSTRAINT payout_daily_balances_available_adds_up CHECK (
          closing_available_cents = opening_available_cents + funded_cents - reserved_cents + released_cents + reversed_cents
                                    - resettled_cents - adjusted_debit_cents + adjusted_credit_cents),
        CONSTRAINT payout_daily_balances_reserved_adds_up CHECK (
          closing_reserved_cents = opening_reserved_cents + reserved_cents - settled_amount_cents - settled_fee_cents - released_cents)
      )`);
    await queryRunner.query(`CREATE INDEX payout_daily_balances_date_idx ON payout_daily_balances (balance_date)`);
    await queryRunner.query(`
      CREATE TABLE purchase_daily_totals (
        vendor_id uuid NOT NULL REFERENCES vendors(id),
        total_date date NOT NULL,
        charged_count integer NOT NULL CHECK (charged_count >= 0),
        ${cents('charged_cents')},
        reversed_count integer NOT NULL CHECK (reversed_count >= 0),
        ${cents('reversed_cents')},
        ${cents('net_cents')},
        closed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (vendor_id, total_date),
        CONSTRAINT purchase_daily_totals_net CHECK (net_cents = charged_cents - reversed_cents)
      )`);
    await queryRunner.query(`CREATE INDEX purchase_daily_totals_date_idx ON purchase_daily_totals (total_date)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE purchase_daily_totals`);
    await queryRunner.query(`DROP TABLE payout_daily_balances`);
    await queryRunner.query(`DROP TABLE settlement_days`);
    await queryRunner.query(`DELETE FROM reconciliation_exceptions WHERE kind = 'missing_report'`);
    await changeExceptionKinds(queryRunner, (kinds) => kinds.filter((kind) => kind !== 'missing_report'));
  }
}

/** Rewrites the CHECK on reconciliation_exceptions.kind as `change` of the kinds it allows now. */
async function changeExceptionKinds(queryRunner: QueryRunner, change: (kinds: string[]) => string[]): Promise<void> {
  const [check] = (await queryRunner.query(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
      WHERE conrelid = 'reconciliation_exceptions'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%kind%'`,
  )) as { name: string; definition: string }[];
  const current = check ? [...check.definition.matchAll(/'([a-z_]+)'::text/g)].map((match) => match[1]) : [];
  if (current.length === 0) throw new Error('cannot read the CHECK on reconciliation_exceptions.kind');
  await queryRunner.query(`ALTER TABLE reconciliation_exceptions DROP CONSTRAINT "${check.name}"`);
  await queryRunner.query(
    `ALTER TABLE reconciliation_exceptions ADD CONSTRAINT reconciliation_exceptions_kind_check CHECK (kind IN (${change(current).map((kind) => `'${kind}'`).join(', ')}))`,
  );
}
