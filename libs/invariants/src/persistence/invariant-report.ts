// What every check writes into: the named invariants, their violations and the report. Kept
// apart from the checker so the per-domain check modules and the checker that runs them do not
// import each other.

export const INVARIANTS = {
  ledgerSums: 'ledger entries sum to available and reserved for every account',
  nonNegativeBalances: 'no balance is negative, except an available balance in debt that its correction debits (resettle, adjust_debit) explain',
  reservedHoldsOpenPayouts: 'reserved equals amount + fee of the open (pending, needs_review) payouts',
  payoutEntriesMatchStatus:
    'every payout has one reserve entry, and exactly the settle/release/reverse entries its status implies (a paid payout exactly one settle, or one release and one resettle when it was paid after we released it)',
  batchTotals: 'a batch item count and totals equal its items',
  singleProviderSubmission: 'no purchase and no payout reached the provider more than once',
  dailyAllowance: 'daily allowance used equals the admitted charges per vendor and Johannesburg day, minus those verified failed',
  allowanceReturnedOnlyOnFailure: 'allowance is returned exactly for failed purchases',
  quoteFundsOneTransaction: 'no quote funds two transactions, and a funded quote is marked used by the same vendor for the same charge',
  idempotencyRecordsMatch: 'every idempotency record names a transaction with its own quote and reference',
  velocityCounters: 'the per-second velocity counters equal the purchases admitted in each second (last seven days)',
  settlementLines: 'every settlement report line is matched or applied to one of our records, or has an open or resolved reconciliation exception',
  settlementLineNotHidden: 'no settlement line is marked as an exception that had already been resolved when the line arrived (a resolved exception hides nothing)',
  oneSettlingLinePerRecord: 'no payout or purchase has more than one matched or applied settlement line of the same status (a second one is a duplicate_line exception)',
  releasedPayoutNotProvedPaid: 'no payout stays failed (its amount + fee released) while a settlement line of the provider proves it paid or reversed',
  payoutHoldsJustified:
    'a payout holds a reservation only while its submission is open (pending, with a status poll scheduled, or queued for submission) or it is an open review item (needs_review)',
  payoutHoldsBounded:
    'no payout holds funds (pending, needs_review) longer than PAYOUT_HOLD_MAX_AGE_MS without an open staff item (an open reconciliation exception naming it, or a pending staff proposal about it)',
  webhookEventPerMove: 'every transaction and payout status move a webhook reports (since webhooks were deployed) has its event',
  webhookDeliveredWith2xx: 'no webhook delivery is marked delivered without an attempt on record that got a 2xx',
  manualResolutionApproved:
    'every manual resolution of a review item rests on a proposal of the same item and outcome approved by someone other than its proposer, and no item was moved by staff without one',
  closedDayBalances:
    'every vendor with ledger entries has a payout balance for each date whose payout provider-days are closed, equal to the ledger (opening, movements by kind, closing), and no balance exists for a day not closed',
  closedDayPurchaseTotals: "every vendor's purchase totals of a closed purchase provider-day equal its purchases completed and reversed that day",
  manualResolutionAgreesWithProvider: 'no manual resolution contradicts what the provider verifiably said about the item, and the item still shows the resolved outcome',
  correctionApproved:
    'every adjust_debit / adjust_credit entry rests on an approved exception.resolve proposal of the same exception, kind and amount, approved by someone other than its proposer, that resolved the exception',
} as const;

export type InvariantName = keyof typeof INVARIANTS;

export interface InvariantViolation {
  invariant: InvariantName;
  /** The account, payout, transaction, quote or provider id concerned. */
  subject: string;
  details: Record<string, unknown>;
}

export interface InvariantReport {
  ok: boolean;
  checkedAt: string;
  scope: { vendors: readonly string[] | 'all'; sandboxes: string[] };
  /** Rows examined per check, so a report of zero violations over zero rows is visible as such. */
  examined: Partial<Record<InvariantName, number>>;
  violations: InvariantViolation[];
  /** Witness sources that could not be read (the check of repeats is then incomplete). */
  warnings: string[];
}

/** Records one violation of `invariant` by `subject`. */
export function addViolation(report: InvariantReport, invariant: InvariantName, subject: string, details: Record<string, unknown>): void {
  report.violations.push({ invariant, subject, details });
}

/**
 * Records a violation of `invariant` for each row a check's query found: the row's `id` is the
 * subject and its other columns, named in the query as the report names them, are the details
 * (`extra` added to each).
 */
export function addRowViolations(report: InvariantReport, invariant: InvariantName, rows: ReadonlyArray<Record<string, unknown>>, extra: Record<string, unknown> = {}): void {
  for (const { id, ...details } of rows) addViolation(report, invariant, String(id), { ...details, ...extra });
}
