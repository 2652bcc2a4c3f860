import { Injectable } from '@nestjs/common';
import sql, { raw, type Sql } from 'sql-template-tag';
import { DataSource } from 'typeorm';
import { readShape, type Queryable } from '#database';
import { centsColumn, centsFromDbValue, type Cents } from '#money';
import { PAYOUT_OPEN_STATUSES } from '../model/payout-status.js';
import { statusLiterals } from './payout-shapes.js';
import type { AccountBalances, LedgerCorrection, LedgerCorrectionKind, LedgerCorrectionEntry, LedgerDiscrepancy, LedgerEntryKind, PayoutAccountSnapshot } from '../model/ledger.js';


/**
 * Each kind's balance update, its guard, and the sign of its effect on (available, reserved) in
 * the entries; the `ledger_entries` CHECK enforces the same signs. `t` is the amount moved (bound).
 */
const MOVES: Record<LedgerEntryKind, { assignments: (t: Sql) => Sql; guard: (t: Sql) => Sql; effect: [number, number] }> = {
  fund: { assignments: (t) => sql`available_cents = available_cents + ${t}`, guard: () => sql`true`, effect: [1, 0] },
  reserve: { assignments: (t) => sql`available_cents = available_cents - ${t}, reserved_cents = reserved_cents + ${t}`, guard: (t) => sql`available_cents >= ${t}`, effect: [-1, 1] },
  settle: { assignments: (t) => sql`reserved_cents = reserved_cents - ${t}`, guard: (t) => sql`reserved_cents >= ${t}`, effect: [0, -1] },
  release: { assignments: (t) => sql`reserved_cents = reserved_cents - ${t}, available_cents = available_cents + ${t}`, guard: (t) => sql`reserved_cents >= ${t}`, effect: [1, -1] },
  reverse: { assignments: (t) => sql`available_cents = available_cents + ${t}`, guard: () => sql`true`, effect: [1, 0] },
  // Corrections: unguarded on purpose. The provider's proof (or an approved decision) stands even
  // when `available` cannot carry it; the shortfall is the vendor's debt (debtOf).
  resettle: { assignments: (t) => sql`available_cents = available_cents - ${t}`, guard: () => sql`true`, effect: [-1, 0] },
  adjust_debit: { assignments: (t) => sql`available_cents = available_cents - ${t}`, guard: () => sql`true`, effect: [-1, 0] },
  adjust_credit: { assignments: (t) => sql`available_cents = available_cents + ${t}`, guard: () => sql`true`, effect: [1, 0] },
};

/** The correction entries (docs/RECONCILIATION.md, "Corrections"), and those of them that debit. */
const CORRECTION_KINDS = ['resettle', 'adjust_debit', 'adjust_credit'] as const satisfies readonly LedgerCorrectionKind[];
const CORRECTION_DEBIT_KINDS = ['resettle', 'adjust_debit'] as const satisfies readonly LedgerCorrectionKind[];

/**
 * SQL of an account whose negative `available` its correction debits explain: without the
 * resettle and adjust_debit entries it would not be negative (`a` the account).
 */
export const DEBT_EXPLAINED_SQL = `a.available_cents + COALESCE((SELECT SUM(amount_cents) FROM ledger_entries c
   WHERE c.vendor_id = a.vendor_id AND c.kind IN (${CORRECTION_DEBIT_KINDS.map((kind) => `'${kind}'`).join(', ')})), 0) >= 0`;

/** One ledger movement as ledgerMoveCtes writes it. */
export interface LedgerMove {
  kind: LedgerEntryKind;
  vendorId: string;
  totalCents: Cents;
  entries: ReadonlyArray<{ payoutId: string | null; cents: Cents }>;
  note?: string | null;
}

/**
 * A ledger movement as two CTEs for a statement that moves money together with the change it
 * follows: `account` (the guarded balance update, RETURNING vendor_id, available_cents,
 * reserved_cents; it locks the vendor's account row until commit) and `account_entries` (the
 * entries, inserted from that RETURNING, so they exist only if the guard held). Its values are
 * bound in the fragment; `onlyIf` is a further condition of the update (for example that a
 * sibling CTE changed a row), so nothing moves unless it holds.
 */
export function ledgerMoveCtes(move: LedgerMove, onlyIf: Sql = sql`true`): Sql {
  const { assignments, guard, effect } = MOVES[move.kind];
  const total = sql`${move.totalCents.toString()}::bigint`;
  return sql`account AS (
         UPDATE payout_accounts SET ${assignments(total)}, updated_at = now()
          WHERE vendor_id = ${move.vendorId}::uuid AND ${guard(total)} AND ${onlyIf} RETURNING vendor_id, available_cents, reserved_cents
       ), account_entries AS (
         INSERT INTO ledger_entries (vendor_id, kind, amount_cents, available_delta_cents, reserved_delta_cents, payout_id, note)
         SELECT account.vendor_id, ${move.kind}::text, t.amount, t.amount * ${effect[0]}::int, t.amount * ${effect[1]}::int, t.payout_id, ${move.note ?? null}::text
           FROM account CROSS JOIN unnest(${move.entries.map((entry) => entry.cents.toString())}::bigint[], ${move.entries.map((entry) => entry.payoutId)}::uuid[]) AS t(amount, payout_id)
       )`;
}

/** `payout_accounts` balances as read. */
const BALANCES = readShape<AccountBalances>({ vendorId: 'vendor_id', availableCents: centsColumn('available_cents'), reservedCents: centsColumn('reserved_cents') });

/** The account with its vendor's name (`a` the account, `v` the vendor). */
const SNAPSHOT = readShape<PayoutAccountSnapshot>({
  id: 'a.id', vendorId: 'a.vendor_id', vendorName: 'v.name', availableCents: centsColumn('a.available_cents'),
  reservedCents: centsColumn('a.reserved_cents'), feePerPayoutCents: centsColumn('a.fee_per_payout_cents'),
});

/** A correction entry as read. */
const CORRECTION_ENTRY = readShape<LedgerCorrectionEntry>({
  id: 'id::text', kind: 'kind', vendorId: 'vendor_id', amountCents: centsColumn('amount_cents'), availableDeltaCents: centsColumn('available_delta_cents'),
  payoutId: 'payout_id', reason: 'reason', exceptionId: 'exception_id', proposalId: 'proposal_id', approvedBy: 'approved_by', createdAt: 'created_at',
});

/** An account against its entries' sums (`e`) and its open payouts' holds (`p`). */
const DISCREPANCY = readShape<LedgerDiscrepancy>({
  vendorId: 'a.vendor_id', availableCents: centsColumn('a.available_cents'), reservedCents: centsColumn('a.reserved_cents'),
  entriesAvailableCents: centsColumn('COALESCE(e.available, 0)'), entriesReservedCents: centsColumn('COALESCE(e.reserved, 0)'),
  openPayoutsCents: centsColumn('COALESCE(p.open_cents, 0)'),
});

/** The ledger aggregate: a vendor's `payout_accounts` row and its append-only `ledger_entries`. */
@Injectable()
export class LedgerRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Creates the vendor's account with zero balances if it has none yet (a missing vendor fails with 23503). */
  async ensureAccount(manager: Queryable, vendorId: string): Promise<void> {
    await manager.query(`INSERT INTO payout_accounts (vendor_id) VALUES ($1) ON CONFLICT (vendor_id) DO NOTHING`, [vendorId]);
  }

  /**
   * The guarded balance update and its entries in ONE statement: the entries are inserted from
   * the update's RETURNING, so they exist only if the guard held. The account row stays locked
   * from here to the caller's commit, so callers move money last in their transaction (the
   * account is the vendor's hot row). The balances after the move, or null when the guard refused
   * (nothing was written).
   */
  async move(
    manager: Queryable,
    vendorId: string,
    kind: LedgerEntryKind,
    totalCents: Cents,
    entries: ReadonlyArray<{ payoutId: string | null; cents: Cents }>,
    note: string | null = null,
  ): Promise<AccountBalances | null> {
    const statement = sql`WITH ${ledgerMoveCtes({ kind, vendorId, totalCents, entries, note })} SELECT ${raw(BALANCES.columns)} FROM account`;
    const rows: object[] = await manager.query(statement.text, statement.values);
    return BALANCES.first(rows);
  }

  /**
   * A correction entry with its balance update, in the caller's transaction: the entry names its
   * reason and source (exception or proposal), and the unique (exception, kind) and (proposal,
   * kind) indexes make a second one for the same source fail. A debit also raises the account's
   * `correction_debits_cents`, how far its CHECK lets `available` go below zero. The balances after it.
   */
  async correct(manager: Queryable, correction: LedgerCorrection): Promise<AccountBalances | null> {
    const [available] = MOVES[correction.kind].effect;
    const rows: object[] = await manager.query(
      `WITH account AS (
         UPDATE payout_accounts SET available_cents = available_cents + $2::bigint * $3, updated_at = now(),
                correction_debits_cents = correction_debits_cents + CASE WHEN $3 < 0 THEN $2::bigint ELSE 0 END
          WHERE vendor_id = $1 RETURNING vendor_id, available_cents, reserved_cents
       ), entry AS (
         INSERT INTO ledger_entries (vendor_id, kind, amount_cents, available_delta_cents, reserved_delta_cents, payout_id, reason, exception_id, proposal_id, approved_by)
         SELECT vendor_id, $4, $2::bigint, $2::bigint * $3, 0, $5::uuid, $6, $7::uuid, $8::uuid, $9 FROM account
       )
       SELECT ${BALANCES.columns} FROM account`,
      [
        correction.vendorId,
        correction.cents.toString(),
        available,
        correction.kind,
        correction.payoutId,
        correction.reason,
        correction.exceptionId,
        correction.proposalId,
        correction.approvedBy,
      ],
    );
    return BALANCES.first(rows);
  }

  /** Correction entries (resettle, adjust_debit, adjust_credit) of a vendor or of an exception, newest first. */
  async corrections(of: { vendorId?: string; exceptionId?: string }, limit = 100): Promise<LedgerCorrectionEntry[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${CORRECTION_ENTRY.columns} FROM ledger_entries
        WHERE kind = ANY($4::text[]) AND ($1::uuid IS NULL OR vendor_id = $1) AND ($2::uuid IS NULL OR exception_id = $2)
          AND ($1::uuid IS NOT NULL OR $2::uuid IS NOT NULL)
        ORDER BY id DESC LIMIT $3`,
      [of.vendorId ?? null, of.exceptionId ?? null, limit, CORRECTION_KINDS],
    );
    return rows.map(CORRECTION_ENTRY.read);
  }

  /** Whether the payout's books were corrected after the fact (it has a `resettle` entry). */
  async wasResettled(manager: Queryable, payoutId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM ledger_entries WHERE payout_id = $1 AND kind = $2`, [payoutId, 'resettle' satisfies LedgerEntryKind]);
    return rows.length > 0;
  }

  async balances(vendorId: string, manager: Queryable = this.dataSource.manager): Promise<AccountBalances | null> {
    const rows: object[] = await manager.query(`SELECT ${BALANCES.columns} FROM payout_accounts WHERE vendor_id = $1`, [vendorId]);
    return BALANCES.first(rows);
  }

  /** The accounts of the given vendors in one statement (staff's vendor list); a vendor without an account has no row. */
  async balancesOf(vendorIds: readonly string[]): Promise<AccountBalances[]> {
    const rows: object[] = await this.dataSource.query(`SELECT ${BALANCES.columns} FROM payout_accounts WHERE vendor_id = ANY($1::uuid[])`, [vendorIds]);
    return rows.map(BALANCES.read);
  }

  /** The account with the vendor's name; null when the vendor has no account. */
  async snapshot(vendorId: string): Promise<PayoutAccountSnapshot | null> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${SNAPSHOT.columns} FROM payout_accounts a JOIN vendors v ON v.id = a.vendor_id WHERE a.vendor_id = $1`,
      [vendorId],
    );
    return SNAPSHOT.first(rows);
  }

  async setFeePerPayout(vendorId: string, feeCents: Cents, manager: Queryable = this.dataSource): Promise<void> {
    await manager.query(`UPDATE payout_accounts SET fee_per_payout_cents = $2, updated_at = now() WHERE vendor_id = $1`, [vendorId, feeCents.toString()]);
  }

  /** The account's fallback fee; zero while the vendor has no account. */
  async feePerPayout(vendorId: string, manager: Queryable = this.dataSource.manager): Promise<Cents> {
    const rows: Array<{ fee_per_payout_cents: string }> = await manager.query(`SELECT fee_per_payout_cents FROM payout_accounts WHERE vendor_id = $1`, [vendorId]);
    return rows.length > 0 ? centsFromDbValue(rows[0].fee_per_payout_cents) : 0n;
  }

  /**
   * Accounts whose balances differ from their entries' sums, or whose `reserved` differs from
   * the holds of their open (pending, needs_review) payouts, or whose `available` is negative
   * without correction debits that explain it. Empty when the books are right.
   */
  async findDiscrepancies(vendorId?: string): Promise<LedgerDiscrepancy[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${DISCREPANCY.columns}
         FROM payout_accounts a
         LEFT JOIN (SELECT vendor_id, SUM(available_delta_cents) AS available, SUM(reserved_delta_cents) AS reserved
                      FROM ledger_entries GROUP BY vendor_id) e ON e.vendor_id = a.vendor_id
         LEFT JOIN (SELECT vendor_id, SUM(amount_cents + fee_cents) AS open_cents
                      FROM payouts WHERE status IN (${statusLiterals(PAYOUT_OPEN_STATUSES)}) GROUP BY vendor_id) p ON p.vendor_id = a.vendor_id
        WHERE ($1::uuid IS NULL OR a.vendor_id = $1)
          AND (a.available_cents <> COALESCE(e.available, 0) OR a.reserved_cents <> COALESCE(e.reserved, 0)
               OR a.reserved_cents <> COALESCE(p.open_cents, 0) OR a.reserved_cents < 0
               OR (a.available_cents < 0 AND NOT (${DEBT_EXPLAINED_SQL})))`,
      [vendorId ?? null],
    );
    return rows.map(DISCREPANCY.read);
  }
}
