import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { JsonBody } from '../json-body.js';
import { sandboxError } from '../sandbox-errors.js';
import { PayoutPaymentBook } from '../payout/payout-payment-book.service.js';
import { payoutPaymentView } from '../payout/payout-payment.js';
import { purchaseTransactionView } from '../purchase/transactions/purchase-transaction.js';
import { PurchaseTransactions } from '../purchase/transactions/purchase-transactions.service.js';
import { reportDayOf, SettlementReports, settlementProviderOf } from './settlement-reports.service.js';

const AMOUNT = /^\d{1,9}\.\d{2}$/;

function optionalBoolean(raw: unknown, field: string): boolean | undefined {
  const value = (raw as Record<string, unknown> | null)?.[field];
  if (value !== undefined && typeof value !== 'boolean') throw sandboxError(400, 'INVALID_FIELD', `${field} must be a boolean`);
  return value as boolean | undefined;
}

/**
 * Sandbox-only controls (no real provider has them; still behind the API key) that make the
 * cases reconciliation exists for happen on demand: a reversal long after every watch, a payout
 * paid after the gateway released it, report lines that disagree with what was sent, lines
 * reported twice, a day's report re-issued without some lines, and a day's report unavailable.
 */
@Controller('__sandbox/settlement')
export class SettlementControlController {
  constructor(
    private readonly reports: SettlementReports,
    private readonly purchases: PurchaseTransactions,
    private readonly payouts: PayoutPaymentBook,
  ) {}

  /** Reverses a completed purchase (`dvs`) or a paid payout now, without a callback. */
  @Post(':provider/reverse/:reference')
  @HttpCode(200)
  reverse(@Param('provider') rawProvider: string, @Param('reference') reference: string) {
    const provider = settlementProviderOf(rawProvider);
    if (provider === 'dvs') {
      const reversed = this.purchases.reverseSilently(reference);
      if (!reversed) throw sandboxError(422, 'NOT_COMPLETED', 'only a completed transaction can be reversed');
      return purchaseTransactionView(reversed);
    }
    const reversed = this.payouts.reverseNow(provider, reference);
    if (!reversed) throw sandboxError(422, 'PAYMENT_NOT_PAID', 'only a paid payment can be reversed');
    return payoutPaymentView(reversed);
  }

  /**
   * `{amount}` reports another amount for the reference; `{omit: true}` leaves its lines out;
   * `{duplicate: true}` reports its line twice (the copy settled a minute later).
   */
  @Post(':provider/lines/:reference')
  @HttpCode(200)
  override(@Param('provider') rawProvider: string, @Param('reference') reference: string, @Body() raw: unknown) {
    const provider = settlementProviderOf(rawProvider);
    const body = JsonBody.of(raw);
    const amount = body.optionalString('amount', AMOUNT);
    const omit = optionalBoolean(raw, 'omit');
    const duplicate = optionalBoolean(raw, 'duplicate');
    this.reports.override(provider, reference, { amount, omit, duplicate });
    return { provider, merchant_reference: reference, amount: amount ?? null, omit: omit ?? false, duplicate: duplicate ?? false };
  }

  /**
   * The provider pays after all a payout the gateway released: a lost submission (test value 05;
   * `{amount}` required, the provider recorded nothing) or a payment still pending or rejected.
   * Paid now, no callback: the settlement report (or a lookup) shows it.
   */
  @Post(':provider/pay-after-release/:reference')
  @HttpCode(200)
  payAfterRelease(@Param('provider') rawProvider: string, @Param('reference') reference: string, @Body() raw: unknown) {
    const provider = settlementProviderOf(rawProvider);
    if (provider === 'dvs') throw sandboxError(404, 'NOT_FOUND', 'payout providers only');
    const amount = JsonBody.of(raw).optionalString('amount', AMOUNT);
    const paid = this.payouts.payAfterRelease(provider, reference, amount);
    if (!paid) throw sandboxError(422, 'CANNOT_PAY', 'only a payment the provider lost (give amount), or one still pending or rejected, can be paid late');
    return payoutPaymentView(paid);
  }

  /** `{drop: [merchant_reference, ...]}`: the day's report is re-issued without those references' lines. */
  @Post(':provider/reissue/:day')
  @HttpCode(200)
  reissue(@Param('provider') rawProvider: string, @Param('day') rawDay: string, @Body() raw: unknown) {
    const provider = settlementProviderOf(rawProvider);
    const day = reportDayOf(rawDay);
    const drop = (raw as { drop?: unknown }).drop;
    if (!Array.isArray(drop) || drop.some((reference) => typeof reference !== 'string')) throw sandboxError(400, 'INVALID_FIELD', 'drop must be a list of merchant references');
    this.reports.reissueWithout(provider, day, drop as string[]);
    return { provider, report_date: day, dropped: drop };
  }

  /** `{available: false}`: the day's report answers 503 until `{available: true}` (a provider outage, a file published late). */
  @Post(':provider/availability/:day')
  @HttpCode(200)
  availability(@Param('provider') rawProvider: string, @Param('day') rawDay: string, @Body() raw: unknown) {
    const provider = settlementProviderOf(rawProvider);
    const day = reportDayOf(rawDay);
    const available = optionalBoolean(raw, 'available');
    if (available === undefined) throw sandboxError(400, 'INVALID_FIELD', 'available (true or false) is required');
    this.reports.setAvailable(provider, day, available);
    return { provider, report_date: day, available };
  }

  /** Adds a line to one day's report for a transaction the provider holds and we never sent. */
  @Post(':provider/extra-lines/:day')
  @HttpCode(200)
  addLine(@Param('provider') rawProvider: string, @Param('day') rawDay: string, @Body() raw: unknown) {
    const provider = settlementProviderOf(rawProvider);
    const day = reportDayOf(rawDay);
    const body = JsonBody.of(raw);
    const line = {
      provider_reference: body.requiredString('provider_reference'),
      merchant_reference: body.requiredString('merchant_reference'),
      amount: body.requiredString('amount', AMOUNT),
      currency: body.optionalString('currency', /^[A-Z]{3}$/) ?? 'ZAR',
      status: body.requiredString('status', /^(COMPLETED|PAID|REVERSED)$/),
      settled_at: body.requiredString('settled_at'),
      reversed_at: body.optionalString('reversed_at') ?? null,
    };
    this.reports.addLine(provider, day, line);
    return line;
  }
}
