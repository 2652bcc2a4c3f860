import { formatCents, type Cents } from '#money';
import type { PayoutRecord } from './payout-record.js';

/** What a dry run says the real call would do. */
export interface PayoutValidation {
  /** `create`: a new payout would be reserved and submitted; `replay`: the stored payout would be answered, nothing new. */
  outcome: 'create' | 'replay';
  reference: string;
  method: string;
  amount: string;
  fee: string;
  currency: 'ZAR';
  /** Amount plus fee: what the real call reserves. */
  hold: string;
  /** `create`: the available balance once the hold is taken, as it stands now; `replay`: null. */
  available_after: string | null;
}

/** What a batch dry run says the real call would do, item by item. */
export interface BatchValidation {
  /** `create`: the batch would be reserved whole and its items queued; `replay`: the stored batch would be answered, nothing new. */
  outcome: 'create' | 'replay';
  reference: string;
  item_count: number;
  total_amount: string;
  total_fee: string;
  /** Every item's amount plus fee: what the real call reserves, all or nothing. */
  total_hold: string;
  currency: 'ZAR';
  /** `create`: the available balance once the whole batch is held, as it stands now; `replay`: null. */
  available_after: string | null;
  /** In request order; on `create` each item's `available_after` is the balance once it and the items before it are held. */
  payouts: PayoutValidation[];
}

type Priced = Pick<PayoutRecord, 'reference' | 'method' | 'amountCents' | 'feeCents'>;

const holdCentsOf = (payout: Priced): Cents => payout.amountCents + payout.feeCents;

export function payoutValidationOf(outcome: PayoutValidation['outcome'], payout: Priced, availableAfterCents: Cents | null): PayoutValidation {
  return {
    outcome,
    reference: payout.reference,
    method: payout.method,
    amount: formatCents(payout.amountCents),
    fee: formatCents(payout.feeCents),
    currency: 'ZAR',
    hold: formatCents(holdCentsOf(payout)),
    available_after: availableAfterCents === null ? null : formatCents(availableAfterCents),
  };
}

/** The total a batch reserves: every item's amount plus fee. */
export function batchHoldCents(items: readonly Priced[]): Cents {
  return items.reduce((sum, item) => sum + holdCentsOf(item), 0n);
}

/** `availableCents`: the balance before the batch is held (`create`), null for a `replay`. */
export function batchValidationOf(outcome: BatchValidation['outcome'], reference: string, items: readonly Priced[], availableCents: Cents | null): BatchValidation {
  let available = availableCents;
  const payouts = items.map((item) => {
    if (available !== null) available -= holdCentsOf(item);
    return payoutValidationOf(outcome, item, available);
  });
  return {
    outcome,
    reference,
    item_count: items.length,
    total_amount: formatCents(items.reduce((sum, item) => sum + item.amountCents, 0n)),
    total_fee: formatCents(items.reduce((sum, item) => sum + item.feeCents, 0n)),
    total_hold: formatCents(batchHoldCents(items)),
    currency: 'ZAR',
    available_after: available === null ? null : formatCents(available),
    payouts,
  };
}
