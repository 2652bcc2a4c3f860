import type { Cents } from '#money';
import type { LedgerEntryKind } from './ledger.js';

/**
 * What a bookkeeper maps a statement line to. A settled payout's fee is its own `fee` line, so
 * the fee income of a range is one total; every other movement is one line per ledger entry.
 */
export const STATEMENT_CATEGORIES = ['funding', 'payout_reserved', 'payout_settled', 'fee', 'release', 'reversal', 'adjustment'] as const;
export type StatementCategory = (typeof STATEMENT_CATEGORIES)[number];

/**
 * The category of each ledger kind's (first) line. `resettle` is a payout the provider proved
 * paid after we had released it: money left the account to the recipient, so it is a settlement
 * (with its fee line), told apart from an ordinary one by its `kind`.
 */
export const CATEGORY_OF_KIND: Record<LedgerEntryKind, StatementCategory> = {
  fund: 'funding',
  reserve: 'payout_reserved',
  settle: 'payout_settled',
  release: 'release',
  reverse: 'reversal',
  resettle: 'payout_settled',
  adjust_debit: 'adjustment',
  adjust_credit: 'adjustment',
};

/** A ledger entry as the statement reads it, with the payout (and batch) it belongs to. */
export interface StatementEntry {
  id: bigint;
  kind: LedgerEntryKind;
  amountCents: Cents;
  availableDeltaCents: Cents;
  reservedDeltaCents: Cents;
  createdAt: Date;
  payoutId: string | null;
  payoutReference: string | null;
  payoutAmountCents: Cents | null;
  payoutFeeCents: Cents | null;
  batchReference: string | null;
}

export interface Balances {
  availableCents: Cents;
  reservedCents: Cents;
}

/** One money movement of the statement, with the balances right after it. */
export interface StatementLine {
  /** Orders the lines of a vendor: 2 × entry id, + 1 for a settlement's fee line. */
  position: bigint;
  entry: StatementEntry;
  category: StatementCategory;
  availableChangeCents: Cents;
  reservedChangeCents: Cents;
  after: Balances;
}

/**
 * Whether the entry is a settlement whose fee is split out: a settle or resettle of exactly the
 * payout's amount + fee, with a fee above zero. Anything else stays one line (never a guess).
 */
export function splitsFee(entry: Pick<StatementEntry, 'kind' | 'amountCents' | 'payoutAmountCents' | 'payoutFeeCents'>): boolean {
  if (entry.kind !== 'settle' && entry.kind !== 'resettle') return false;
  if (entry.payoutAmountCents === null || entry.payoutFeeCents === null || entry.payoutFeeCents <= 0n) return false;
  return entry.payoutAmountCents + entry.payoutFeeCents === entry.amountCents;
}

/**
 * The lines of consecutive entries (ascending ids), with running balances from `before` (the
 * balances before the first entry). The lines' changes add up to each entry's deltas exactly.
 */
export function statementLines(entries: readonly StatementEntry[], before: Balances): StatementLine[] {
  const lines: StatementLine[] = [];
  let running = before;
  const push = (entry: StatementEntry, part: 0n | 1n, category: StatementCategory, availableChangeCents: Cents, reservedChangeCents: Cents) => {
    running = { availableCents: running.availableCents + availableChangeCents, reservedCents: running.reservedCents + reservedChangeCents };
    lines.push({ position: entry.id * 2n + part, entry, category, availableChangeCents, reservedChangeCents, after: running });
  };
  for (const entry of entries) {
    if (!splitsFee(entry)) {
      push(entry, 0n, CATEGORY_OF_KIND[entry.kind], entry.availableDeltaCents, entry.reservedDeltaCents);
      continue;
    }
    // The same side the entry moves (reserved for settle, available for resettle), amount then fee.
    const fee = entry.payoutFeeCents as Cents;
    const feeShare = (delta: Cents) => (delta === 0n ? 0n : delta < 0n ? -fee : fee);
    const availableFee = feeShare(entry.availableDeltaCents);
    const reservedFee = feeShare(entry.reservedDeltaCents);
    push(entry, 0n, CATEGORY_OF_KIND[entry.kind], entry.availableDeltaCents - availableFee, entry.reservedDeltaCents - reservedFee);
    push(entry, 1n, 'fee', availableFee, reservedFee);
  }
  return lines;
}

/** A line's magnitude: what moved, whichever balance it moved. */
export function lineAmountCents(line: Pick<StatementLine, 'availableChangeCents' | 'reservedChangeCents'>): Cents {
  const abs = (value: Cents) => (value < 0n ? -value : value);
  return abs(line.availableChangeCents) > abs(line.reservedChangeCents) ? abs(line.availableChangeCents) : abs(line.reservedChangeCents);
}

/** The opaque statement cursor: the position of the last line of the page, base64url. */
export function encodeStatementCursor(position: bigint): string {
  return Buffer.from(`s1:${position.toString()}`, 'utf8').toString('base64url');
}

/** The position a cursor names, or null when it is not one of ours. */
export function decodeStatementCursor(cursor: string): bigint | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return null;
  const match = /^s1:(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? BigInt(match[1]) : null;
}
