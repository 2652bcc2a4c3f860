import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '#common';
import { centsFromDbValue, type Cents } from '#money';
import { InsufficientFundsError, LedgerInvariantError } from '../model/ledger-errors.js';
import type { LedgerEntryKind } from '../persistence/entities/ledger-entry.entity.js';

export interface AccountBalances {
  vendorId: string;
  availableCents: Cents;
  reservedCents: Cents;
}

/** One payout's hold: amount plus the snapshotted fee. */
export interface PayoutHold {
  payoutId: string;
  cents: Cents;
}

export interface LedgerDiscrepancy {
  vendorId: string;
  availableCents: Cents;
  reservedCents: Cents;
  entriesAvailableCents: Cents;
  entriesReservedCents: Cents;
  /** amount + fee of the vendor's pending and needs_review payouts: what `reserved` must hold. */
  openPayoutsCents: Cents;
}

/**
 * The prefunded account as TigerBeetle-style two-phase transfers: `reserve` holds amount + fee
 * when a payout is created, `settle` posts it when the provider paid, `release` voids it when the
 * payout failed or was cancelled, and `reverse` returns a paid payout's money. Every movement is
 * an append-only entry written in the caller's transaction together with a guarded balance
 * update, so balances equal the entries' sums and concurrent payouts can never overdraw.
 */
@Injectable()
export class PayoutLedger {
  constructor(private readonly dataSource: DataSource) {}

  /** Credits the account (ops `payout:fund`). */
  async fund(vendorId: string, amountCents: Cents, note: string | null = null): Promise<AccountBalances> {
    if (typeof amountCents !== 'bigint' || amountCents <= 0n) throw new ValidationFailedError({ amount: ['amount must be positive'] });
    return this.dataSource.transaction(async (manager) => {
      await this.ensureAccount(manager, vendorId);
      const account = await this.moveWithEntries(manager, vendorId, 'fund', `available_cents = available_cents + $2`, `true`, amountCents, [{ payoutId: null, cents: amountCents }], note);
      if (!account) throw new LedgerInvariantError(`fund: no account for vendor ${vendorId}`);
      return balancesOf(account);
    });
  }

  /** Creates the vendor's account with zero balances if it has none yet. */
  async ensureAccount(manager: EntityManager, vendorId: string): Promise<void> {
    try {
      await manager.query(`INSERT INTO payout_accounts (vendor_id) VALUES ($1) ON CONFLICT (vendor_id) DO NOTHING`, [vendorId]);
    } catch (error) {
      if ((error as { code?: string }).code === '23503') throw new NotFoundError('vendor');
      throw error;
    }
  }

  /**
   * Holds every payout's amount + fee, all or nothing: one guarded update for the total, so a
   * balance that does not cover it changes nothing and the caller's transaction rolls back.
   */
  async reserve(manager: EntityManager, vendorId: string, holds: readonly PayoutHold[]): Promise<void> {
    const total = holds.reduce((sum, hold) => sum + hold.cents, 0n);
    const moved = await this.moveWithEntries(
      manager,
      vendorId,
      'reserve',
      `available_cents = available_cents - $2, reserved_cents = reserved_cents + $2`,
      `available_cents >= $2`,
      total,
      holds,
    );
    if (!moved) throw new InsufficientFundsError();
  }

  /** The provider paid: the held money leaves the account. */
  async settle(manager: EntityManager, vendorId: string, hold: PayoutHold): Promise<void> {
    await this.moveHeld(manager, vendorId, hold, 'settle', `reserved_cents = reserved_cents - $2`);
  }

  /** The payout failed or was cancelled: the held money is available again. */
  async release(manager: EntityManager, vendorId: string, hold: PayoutHold): Promise<void> {
    await this.moveHeld(manager, vendorId, hold, 'release', `reserved_cents = reserved_cents - $2, available_cents = available_cents + $2`);
  }

  /** A paid payout came back: amount and fee return to available. */
  async reverse(manager: EntityManager, vendorId: string, hold: PayoutHold): Promise<void> {
    const moved = await this.moveWithEntries(manager, vendorId, 'reverse', `available_cents = available_cents + $2`, `true`, hold.cents, [hold]);
    if (!moved) throw new LedgerInvariantError(`reverse for payout ${hold.payoutId}: no account for vendor ${vendorId}`);
  }

  async balances(vendorId: string, manager: EntityManager = this.dataSource.manager): Promise<AccountBalances> {
    const rows: BalanceRow[] = await manager.query(`SELECT vendor_id, available_cents, reserved_cents FROM payout_accounts WHERE vendor_id = $1`, [vendorId]);
    return rows.length > 0 ? balancesOf(rows[0]) : { vendorId, availableCents: 0n, reservedCents: 0n };
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

  private async moveHeld(manager: EntityManager, vendorId: string, hold: PayoutHold, kind: 'settle' | 'release', assignments: string): Promise<void> {
    const moved = await this.moveWithEntries(manager, vendorId, kind, assignments, `reserved_cents >= $2`, hold.cents, [hold]);
    if (!moved) throw new LedgerInvariantError(`${kind} for payout ${hold.payoutId}: reserved balance does not hold ${hold.cents} cents`);
  }

  /**
   * The guarded balance update and its entries in ONE statement: the entries are inserted from
   * the update's RETURNING, so they exist only if the guard held. The account row stays locked
   * from here to the caller's commit, so callers move money last in their transaction (the
   * account is the vendor's hot row). The balances after the move, or null when the guard refused
   * (nothing was written).
   */
  private async moveWithEntries(
    manager: EntityManager,
    vendorId: string,
    kind: LedgerEntryKind,
    assignments: string,
    guard: string,
    totalCents: Cents,
    entries: ReadonlyArray<{ payoutId: string | null; cents: Cents }>,
    note: string | null = null,
  ): Promise<BalanceRow | null> {
    const [availableSign, reservedSign] = ENTRY_EFFECT[kind];
    const rows: BalanceRow[] = await manager.query(
      `WITH account AS (
         UPDATE payout_accounts SET ${assignments}, updated_at = now()
          WHERE vendor_id = $1 AND ${guard} RETURNING vendor_id, available_cents, reserved_cents
       ), entries AS (
         INSERT INTO ledger_entries (vendor_id, kind, amount_cents, available_delta_cents, reserved_delta_cents, payout_id, note)
         SELECT account.vendor_id, $3, t.amount, t.amount * $4, t.amount * $5, t.payout_id, $8::text
           FROM account CROSS JOIN unnest($6::bigint[], $7::uuid[]) AS t(amount, payout_id)
       )
       SELECT vendor_id, available_cents, reserved_cents FROM account`,
      [
        vendorId,
        totalCents.toString(),
        kind,
        availableSign,
        reservedSign,
        entries.map((entry) => entry.cents.toString()),
        entries.map((entry) => entry.payoutId),
        note,
      ],
    );
    return rows[0] ?? null;
  }
}

/** Sign of each kind's effect on (available, reserved); the table's CHECK enforces the same. */
const ENTRY_EFFECT: Record<LedgerEntryKind, [number, number]> = {
  fund: [1, 0],
  reserve: [-1, 1],
  settle: [0, -1],
  release: [1, -1],
  reverse: [1, 0],
};

interface BalanceRow {
  vendor_id: string;
  available_cents: string;
  reserved_cents: string;
}

function balancesOf(row: BalanceRow): AccountBalances {
  return { vendorId: row.vendor_id, availableCents: centsFromDbValue(row.available_cents), reservedCents: centsFromDbValue(row.reserved_cents) };
}
