import type { Cents } from '#money';

/** Each kind has a fixed effect on the balances (see LedgerRepository); `ledger_entries` is append-only. */
export type LedgerEntryKind = 'fund' | 'reserve' | 'settle' | 'release' | 'reverse';

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

export interface LedgerDiscrepancy extends AccountBalances {
  entriesAvailableCents: Cents;
  entriesReservedCents: Cents;
  /** amount + fee of the vendor's pending and needs_review payouts: what `reserved` must hold. */
  openPayoutsCents: Cents;
}

export interface PayoutAccountSnapshot extends AccountBalances {
  id: string;
  vendorName: string;
  feePerPayoutCents: Cents;
}
