import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape } from '#database';
import { centsColumn, centsOrNullColumn, type Cents } from '#money';
import type { LedgerEntryKind } from '../model/ledger.js';
import type { Balances, StatementEntry } from '../model/statement.js';

/** A half-open instant range `[start, endExclusive)`; a null end is open. */
export interface InstantRange {
  start: Date | null;
  endExclusive: Date | null;
}

/** The sums of one ledger kind over a range, with the fee share of the settlements that split it. */
export interface KindTotals {
  kind: LedgerEntryKind;
  count: number;
  availableCents: Cents;
  reservedCents: Cents;
  /** Entries whose fee is a line of its own (model/statement.ts, splitsFee). */
  feeLines: number;
  feeCents: Cents;
}

/**
 * The settle or resettle entries that split their fee out (splitsFee in model/statement.ts, kept
 * identical): `e` the entry, `p` its payout.
 */
const SPLITS_FEE_SQL = `(e.kind IN ('settle', 'resettle') AND p.fee_cents > 0 AND p.amount_cents + p.fee_cents = e.amount_cents)`;

/** A ledger entry with its payout and batch (`e`, `p`, `b`). */
const ENTRY = readShape<StatementEntry>({
  id: ['e.id', (raw: string) => BigInt(raw)],
  kind: 'e.kind',
  amountCents: centsColumn('e.amount_cents'),
  availableDeltaCents: centsColumn('e.available_delta_cents'),
  reservedDeltaCents: centsColumn('e.reserved_delta_cents'),
  createdAt: 'e.created_at',
  payoutId: 'e.payout_id',
  payoutReference: 'p.reference',
  payoutAmountCents: centsOrNullColumn('p.amount_cents'),
  payoutFeeCents: centsOrNullColumn('p.fee_cents'),
  batchReference: 'b.reference',
});

const ENTRY_FROM = `ledger_entries e LEFT JOIN payouts p ON p.id = e.payout_id LEFT JOIN payout_batches b ON b.id = p.batch_id`;

/** The range condition on `e.created_at`, its bounds at `$first` and `$first + 1` (null = open). */
const inRange = (first: number) =>
  `($${first}::timestamptz IS NULL OR e.created_at >= $${first}::timestamptz) AND ($${first + 1}::timestamptz IS NULL OR e.created_at < $${first + 1}::timestamptz)`;

const BALANCES = readShape<Balances>({
  availableCents: centsColumn('COALESCE(SUM(e.available_delta_cents), 0)'),
  reservedCents: centsColumn('COALESCE(SUM(e.reserved_delta_cents), 0)'),
});

const TOTALS = readShape<KindTotals>({
  kind: 'e.kind',
  count: ['COUNT(*)', Number],
  availableCents: centsColumn('SUM(e.available_delta_cents)'),
  reservedCents: centsColumn('SUM(e.reserved_delta_cents)'),
  feeLines: ['COUNT(*) FILTER (WHERE ' + SPLITS_FEE_SQL + ')', Number],
  feeCents: centsColumn('COALESCE(SUM(p.fee_cents) FILTER (WHERE ' + SPLITS_FEE_SQL + '), 0)'),
});

/**
 * Reads of a vendor's `ledger_entries` for its account statement. Entry ids order a vendor's
 * entries as they were committed: every movement updates the vendor's account row first (a row
 * lock held to commit) and takes its id after, so a later id is never visible before an earlier
 * one of the same vendor. That is what makes an id cursor skip nothing while entries arrive.
 */
@Injectable()
export class StatementRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The balances made by the vendor's entries before `instant` (all of them when null = the beginning: zero). */
  async balancesBefore(vendorId: string, instant: Date | null): Promise<Balances> {
    if (instant === null) return { availableCents: 0n, reservedCents: 0n };
    const rows: object[] = await this.dataSource.query(`SELECT ${BALANCES.columns} FROM ledger_entries e WHERE e.vendor_id = $1 AND e.created_at < $2`, [vendorId, instant]);
    return BALANCES.read(rows[0]);
  }

  /** The sums of the vendor's entries in the range with an id below `belowId` (what precedes a page). */
  async rangeSumBelow(vendorId: string, range: InstantRange, belowId: bigint): Promise<Balances> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${BALANCES.columns} FROM ledger_entries e WHERE e.vendor_id = $1 AND ${inRange(2)} AND e.id < $4`,
      [vendorId, range.start, range.endExclusive, belowId.toString()],
    );
    return BALANCES.read(rows[0]);
  }

  /**
   * Up to `limit` of the vendor's entries in the range, from entry id `fromId` on (inclusive) in
   * the given direction; null starts at the oldest or newest end.
   */
  async entries(vendorId: string, range: InstantRange, order: 'asc' | 'desc', fromId: bigint | null, limit: number): Promise<StatementEntry[]> {
    const keyset = `($4::bigint IS NULL OR e.id ${order === 'asc' ? '>=' : '<='} $4::bigint)`;
    const rows: object[] = await this.dataSource.query(
      `SELECT ${ENTRY.columns} FROM ${ENTRY_FROM}
        WHERE e.vendor_id = $1 AND ${inRange(2)} AND ${keyset}
        ORDER BY e.id ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT $5`,
      [vendorId, range.start, range.endExclusive, fromId?.toString() ?? null, limit],
    );
    return rows.map(ENTRY.read);
  }

  /** The highest id of the vendor's entries in the range (null when there are none): an export's fixed end. */
  async lastEntryId(vendorId: string, range: InstantRange): Promise<bigint | null> {
    const rows: Array<{ id: string | null }> = await this.dataSource.query(`SELECT MAX(e.id) AS id FROM ledger_entries e WHERE e.vendor_id = $1 AND ${inRange(2)}`, [
      vendorId,
      range.start,
      range.endExclusive,
    ]);
    return rows[0].id === null ? null : BigInt(rows[0].id);
  }

  /** The vendor's entries in the range after `afterId` up to `lastId` inclusive, ascending, at most `limit`. */
  async entriesBetween(vendorId: string, range: InstantRange, afterId: bigint, lastId: bigint, limit: number): Promise<StatementEntry[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${ENTRY.columns} FROM ${ENTRY_FROM}
        WHERE e.vendor_id = $1 AND ${inRange(2)} AND e.id > $4 AND e.id <= $5
        ORDER BY e.id ASC LIMIT $6`,
      [vendorId, range.start, range.endExclusive, afterId.toString(), lastId.toString(), limit],
    );
    return rows.map(ENTRY.read);
  }

  /** Per-kind sums of the vendor's entries in the range, up to entry `lastId` when given. */
  async totals(vendorId: string, range: InstantRange, lastId: bigint | null = null): Promise<KindTotals[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${TOTALS.columns} FROM ledger_entries e LEFT JOIN payouts p ON p.id = e.payout_id
        WHERE e.vendor_id = $1 AND ${inRange(2)} AND ($4::bigint IS NULL OR e.id <= $4::bigint)
        GROUP BY e.kind`,
      [vendorId, range.start, range.endExclusive, lastId?.toString() ?? null],
    );
    return rows.map(TOTALS.read);
  }
}
