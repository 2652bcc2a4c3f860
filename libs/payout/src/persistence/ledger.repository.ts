import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { centsFromDbValue, type Cents } from '#money';
import type { AccountBalances, LedgerDiscrepancy, LedgerEntryKind, PayoutAccountSnapshot } from '../model/ledger.js';
import type { Queryable } from './queryable.js';


/**
 * Each kind's balance update, its guard, and the sign of its effect on (available, reserved) in
 * the entries; the `ledger_entries` CHECK enforces the same signs. `$2` is the amount moved.
 */
const MOVES: Record<LedgerEntryKind, { assignments: string; guard: string; effect: [number, number] }> = {
  fund: { assignments: `available_cents = available_cents + $2`, guard: `true`, effect: [1, 0] },
  reserve: { assignments: `available_cents = available_cents - $2, reserved_cents = reserved_cents + $2`, guard: `available_cents >= $2`, effect: [-1, 1] },
  settle: { assignments: `reserved_cents = reserved_cents - $2`, guard: `reserved_cents >= $2`, effect: [0, -1] },
  release: { assignments: `reserved_cents = reserved_cents - $2, available_cents = available_cents + $2`, guard: `reserved_cents >= $2`, effect: [1, -1] },
  reverse: { assignments: `available_cents = available_cents + $2`, guard: `true`, effect: [1, 0] },
};

/** `payout_accounts` balances as read: the one column list and row type. */
const BALANCE_COLUMNS = 'vendor_id, available_cents, reserved_cents';

interface BalanceRow {
  vendor_id: string;
  available_cents: string;
  reserved_cents: string;
}

function balancesOf(row: BalanceRow): AccountBalances {
  return { vendorId: row.vendor_id, availableCents: centsFromDbValue(row.available_cents), reservedCents: centsFromDbValue(row.reserved_cents) };
}

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
    const { assignments, guard, effect } = MOVES[kind];
    const rows: BalanceRow[] = await manager.query(
      `WITH account AS (
         UPDATE payout_accounts SET ${assignments}, updated_at = now()
          WHERE vendor_id = $1 AND ${guard} RETURNING ${BALANCE_COLUMNS}
       ), entries AS (
         INSERT INTO ledger_entries (vendor_id, kind, amount_cents, available_delta_cents, reserved_delta_cents, payout_id, note)
         SELECT account.vendor_id, $3, t.amount, t.amount * $4, t.amount * $5, t.payout_id, $8::text
           FROM account CROSS JOIN unnest($6::bigint[], $7::uuid[]) AS t(amount, payout_id)
       )
       SELECT ${BALANCE_COLUMNS} FROM account`,
      [
        vendorId,
        totalCents.toString(),
        kind,
        effect[0],
        effect[1],
        entries.map((entry) => entry.cents.toString()),
        entries.map((entry) => entry.payoutId),
        note,
      ],
    );
    return rows.length > 0 ? balancesOf(rows[0]) : null;
  }

  async balances(vendorId: string, manager: Queryable = this.dataSource.manager): Promise<AccountBalances | null> {
    const rows: BalanceRow[] = await manager.query(`SELECT ${BALANCE_COLUMNS} FROM payout_accounts WHERE vendor_id = $1`, [vendorId]);
    return rows.length > 0 ? balancesOf(rows[0]) : null;
  }

  /** The account with the vendor's name; null when the vendor has no account. */
  async snapshot(vendorId: string): Promise<PayoutAccountSnapshot | null> {
    const rows: Array<{ id: string; vendor_id: string; name: string; available_cents: string; reserved_cents: string; fee_per_payout_cents: string }> =
      await this.dataSource.query(
        `SELECT a.id, a.vendor_id, v.name, a.available_cents, a.reserved_cents, a.fee_per_payout_cents
           FROM payout_accounts a JOIN vendors v ON v.id = a.vendor_id WHERE a.vendor_id = $1`,
        [vendorId],
      );
    if (rows.length === 0) return null;
    const row = rows[0];
    return {
      id: row.id,
      vendorId: row.vendor_id,
      vendorName: row.name,
      availableCents: centsFromDbValue(row.available_cents),
      reservedCents: centsFromDbValue(row.reserved_cents),
      feePerPayoutCents: centsFromDbValue(row.fee_per_payout_cents),
    };
  }

  async setFeePerPayout(vendorId: string, feeCents: Cents): Promise<void> {
    await this.dataSource.query(`UPDATE payout_accounts SET fee_per_payout_cents = $2, updated_at = now() WHERE vendor_id = $1`, [vendorId, feeCents.toString()]);
  }

  /** The account's fallback fee; zero while the vendor has no account. */
  async feePerPayout(vendorId: string, manager: Queryable = this.dataSource.manager): Promise<Cents> {
    const rows: Array<{ fee_per_payout_cents: string }> = await manager.query(`SELECT fee_per_payout_cents FROM payout_accounts WHERE vendor_id = $1`, [vendorId]);
    return rows.length > 0 ? centsFromDbValue(rows[0].fee_per_payout_cents) : 0n;
  }

  /**
   * Accounts whose balances differ from their entries' sums, or whose `reserved` differs from
   * the holds of their open (pending, needs_review) payouts. Empty when the books are right.
   */
  async findDiscrepancies(vendorId?: string): Promise<LedgerDiscrepancy[]> {
    const rows: Array<Record<string, string>> = await this.dataSource.query(
      `SELECT a.vendor_id, a.available_cents, a.reserved_cents,
              COALESCE(e.available, 0) AS entries_available, COALESCE(e.reserved, 0) AS entries_reserved,
              COALESCE(p.open_cents, 0) AS open_cents
         FROM payout_accounts a
         LEFT JOIN (SELECT vendor_id, SUM(available_delta_cents) AS available, SUM(reserved_delta_cents) AS reserved
                      FROM ledger_entries GROUP BY vendor_id) e ON e.vendor_id = a.vendor_id
         LEFT JOIN (SELECT vendor_id, SUM(amount_cents + fee_cents) AS open_cents
                      FROM payouts WHERE status IN ('pending', 'needs_review') GROUP BY vendor_id) p ON p.vendor_id = a.vendor_id
        WHERE ($1::uuid IS NULL OR a.vendor_id = $1)
          AND (a.available_cents <> COALESCE(e.available, 0) OR a.reserved_cents <> COALESCE(e.reserved, 0)
               OR a.reserved_cents <> COALESCE(p.open_cents, 0) OR a.available_cents < 0 OR a.reserved_cents < 0)`,
      [vendorId ?? null],
    );
    return rows.map((row) => ({
      vendorId: row.vendor_id,
      availableCents: centsFromDbValue(row.available_cents),
      reservedCents: centsFromDbValue(row.reserved_cents),
      entriesAvailableCents: centsFromDbValue(row.entries_available),
      entriesReservedCents: centsFromDbValue(row.entries_reserved),
      openPayoutsCents: centsFromDbValue(row.open_cents),
    }));
  }
}
