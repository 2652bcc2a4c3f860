import { Injectable } from '@nestjs/common';
import { johannesburgDayOf, parseIsoDay } from '#common';
import { sandboxError } from '../sandbox-errors.js';
import { PAYOUT_PROVIDERS, type PayoutPayment, type PayoutProviderName } from '../payout/payout-payment.js';
import { PayoutPaymentBook } from '../payout/payout-payment-book.service.js';
import type { PurchaseTransaction } from '../purchase/transactions/purchase-transaction.js';
import { PurchaseTransactions } from '../purchase/transactions/purchase-transactions.service.js';

/** Every provider that publishes a daily settlement report: the purchase provider and each payout provider. */
export type SettlementProvider = 'dvs' | PayoutProviderName;
export const SETTLEMENT_PROVIDERS: readonly SettlementProvider[] = ['dvs', ...PAYOUT_PROVIDERS];

/** One line of a provider's settlement report (the wire shape; amounts are exact decimal strings). */
export interface SettlementLineWire {
  provider_reference: string;
  merchant_reference: string;
  amount: string;
  currency: string;
  /** `COMPLETED` / `REVERSED` for purchases, `PAID` / `REVERSED` for payouts, as of the end of the report's day. */
  status: string;
  settled_at: string;
  reversed_at: string | null;
}

/** A test's change to one reference's line: another amount, left out of the report, or reported twice. */
interface LineOverride {
  amount?: string;
  omit?: boolean;
  /** The line appears twice on its report, the copy settled a minute later (a provider settling twice). */
  duplicate?: boolean;
}

const DUPLICATE_OFFSET_MS = 60_000;

/**
 * Daily settlement reports, built from what the sandbox's providers hold, as a real provider's
 * statement file is: a line for every transaction settled (completed, paid) or reversed on that
 * Johannesburg day, with its status as of the end of that day. A purchase completed on Monday and
 * reversed on Wednesday is COMPLETED on Monday's report and REVERSED on Wednesday's.
 *
 * Tests shape reports through the `/__sandbox/settlement` controls: an amount that differs, a
 * line left out, a line reported twice, a day re-issued without some lines, a line for a
 * transaction nobody sent.
 */
@Injectable()
export class SettlementReports {
  private readonly overrides = new Map<string, LineOverride>();
  private readonly extraLines = new Map<string, SettlementLineWire[]>();
  /** Merchant references a re-issued day's report no longer holds, per provider and day. */
  private readonly dropped = new Map<string, Set<string>>();
  /** Provider-days whose report the provider does not publish (yet): its endpoint answers 503. */
  private readonly unavailable = new Set<string>();

  constructor(
    private readonly purchases: PurchaseTransactions,
    private readonly payouts: PayoutPaymentBook,
  ) {}

  /** Makes one day's report unavailable (the provider's outage, a file not published) or available again. */
  setAvailable(provider: SettlementProvider, day: string, available: boolean): void {
    if (available) this.unavailable.delete(`${provider}\u0000${day}`);
    else this.unavailable.add(`${provider}\u0000${day}`);
  }

  isAvailable(provider: SettlementProvider, day: string): boolean {
    return !this.unavailable.has(`${provider}\u0000${day}`);
  }

  linesOf(provider: SettlementProvider, day: string): SettlementLineWire[] {
    const lines = provider === 'dvs' ? this.purchaseLines(day) : this.payoutLines(provider, day);
    const dropped = this.dropped.get(`${provider}\u0000${day}`) ?? new Set<string>();
    const shaped = lines
      .filter((line) => !this.overrides.get(overrideKey(provider, line.merchant_reference))?.omit && !dropped.has(line.merchant_reference))
      .flatMap((line) => {
        const override = this.overrides.get(overrideKey(provider, line.merchant_reference));
        const shapedLine = override?.amount === undefined ? line : { ...line, amount: override.amount };
        if (!override?.duplicate) return [shapedLine];
        return [shapedLine, { ...shapedLine, settled_at: new Date(Date.parse(shapedLine.settled_at) + DUPLICATE_OFFSET_MS).toISOString() }];
      });
    return [...shaped, ...(this.extraLines.get(`${provider}\u0000${day}`) ?? []).filter((line) => !dropped.has(line.merchant_reference))];
  }

  /** Re-issues one day's report without the lines of these merchant references (that day only). */
  reissueWithout(provider: SettlementProvider, day: string, merchantReferences: readonly string[]): void {
    const key = `${provider}\u0000${day}`;
    this.dropped.set(key, new Set([...(this.dropped.get(key) ?? []), ...merchantReferences]));
  }

  override(provider: SettlementProvider, merchantReference: string, override: LineOverride): void {
    this.overrides.set(overrideKey(provider, merchantReference), { ...this.overrides.get(overrideKey(provider, merchantReference)), ...override });
  }

  addLine(provider: SettlementProvider, day: string, line: SettlementLineWire): void {
    const key = `${provider}\u0000${day}`;
    this.extraLines.set(key, [...(this.extraLines.get(key) ?? []), line]);
  }

  private purchaseLines(day: string): SettlementLineWire[] {
    return this.purchases
      .all()
      .filter((transaction) => touches(day, transaction.completedAt, transaction.reversedAt))
      .map((transaction) => purchaseLine(transaction, day));
  }

  private payoutLines(provider: PayoutProviderName, day: string): SettlementLineWire[] {
    return this.payouts
      .all()
      .filter((payment) => payment.provider === provider && touches(day, payment.paidAt, payment.reversedAt))
      .map((payment) => payoutLine(payment, day));
  }
}

export function settlementProviderOf(raw: string): SettlementProvider {
  const provider = SETTLEMENT_PROVIDERS.find((candidate) => candidate === raw);
  if (!provider) throw sandboxError(404, 'NOT_FOUND', 'provider not found');
  return provider;
}

/** A report's day from the path: YYYY-MM-DD, a real calendar date. */
export function reportDayOf(raw: string): string {
  try {
    return parseIsoDay(raw);
  } catch {
    throw sandboxError(400, 'INVALID_DATE', 'the report date must be YYYY-MM-DD');
  }
}

function overrideKey(provider: SettlementProvider, merchantReference: string): string {
  return `${provider}\u0000${merchantReference}`;
}

function touches(day: string, settledAt: Date | null, reversedAt: Date | null): boolean {
  return (settledAt !== null && johannesburgDayOf(settledAt) === day) || (reversedAt !== null && johannesburgDayOf(reversedAt) === day);
}

function purchaseLine(transaction: PurchaseTransaction, day: string): SettlementLineWire {
  const references = { provider_reference: String(transaction.id), merchant_reference: transaction.externalId, amount: transaction.wholesalePrice };
  return settlementLine(day, references, { word: 'COMPLETED', at: transaction.completedAt ?? transaction.createdAt }, transaction.reversedAt);
}

function payoutLine(payment: PayoutPayment, day: string): SettlementLineWire {
  const references = { provider_reference: payment.providerReference, merchant_reference: payment.merchantReference, amount: payment.amount };
  return settlementLine(day, references, { word: 'PAID', at: payment.paidAt ?? payment.createdAt }, payment.reversedAt);
}

/**
 * One line of `day`'s report: settled under the provider's word, or REVERSED only if the
 * reversal fell on that day or before it (a later reversal shows in a later day's report).
 */
function settlementLine(
  day: string,
  references: Pick<SettlementLineWire, 'provider_reference' | 'merchant_reference' | 'amount'>,
  settled: { word: 'COMPLETED' | 'PAID'; at: Date },
  reversedAt: Date | null,
): SettlementLineWire {
  const reversed = reversedAt !== null && johannesburgDayOf(reversedAt) <= day;
  return {
    ...references,
    currency: 'ZAR',
    status: reversed ? 'REVERSED' : settled.word,
    settled_at: settled.at.toISOString(),
    reversed_at: reversed ? reversedAt.toISOString() : null,
  };
}
