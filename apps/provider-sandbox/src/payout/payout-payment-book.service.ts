import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { JsonBody } from '../json-body.js';
import { SANDBOX_OPTIONS, type SandboxOptions } from '../sandbox-options.js';
import { notFound, sandboxError } from '../sandbox-errors.js';
import { SandboxScheduler } from '../sandbox-scheduler.js';
import { testValueSuffix } from '../test-value-suffix.js';
import { SubmissionWitness } from '../witness/submission-witness.service.js';
import {
  payoutScenarioFor,
  type PayoutDelivery,
  type PayoutPayment,
  type PayoutProviderName,
} from './payout-payment.js';
import { MERCHANT_REFERENCE_PATTERN } from './payout-request-fields.js';

export interface AcceptedPayout {
  amount: string;
  productCode?: string;
  /** The identifier whose last two digits pick the test value. */
  testValue: string;
  providerReference: string;
  /** Cash-send and vouchers are paid at submission; RTC EFT settles after a delay. */
  settlement: 'at_submission' | 'after_settle_delay';
  issueDelivery: (() => PayoutDelivery) | null;
}

export interface SubmittedPayout {
  payment: PayoutPayment;
  /** True when the merchant reference was already known and the existing payment came back. */
  replayed: boolean;
}

/**
 * The payments every payout provider holds. A merchant reference is idempotent per provider:
 * submitting it again returns the payment the provider already has and moves no more money.
 */
@Injectable()
export class PayoutPaymentBook {
  private readonly payments = new Map<string, PayoutPayment>();
  /** What each payment was accepted with, so a late answer (settleLate) can still issue its delivery. */
  private readonly accepted = new Map<string, AcceptedPayout>();

  constructor(
    private readonly witness: SubmissionWitness,
    private readonly scheduler: SandboxScheduler,
    @Inject(SANDBOX_OPTIONS) private readonly options: SandboxOptions,
  ) {}

  /**
   * Submits `body` to `provider` under its merchant reference. `accept` builds the rest of the
   * request; it runs only for a reference the provider has not seen, so a replay skips validation.
   */
  async submit(provider: PayoutProviderName, body: JsonBody, accept: () => AcceptedPayout): Promise<SubmittedPayout> {
    const merchantReference = body.requiredString('merchant_reference', MERCHANT_REFERENCE_PATTERN);
    const key = keyOf(provider, merchantReference);
    const existing = this.payments.get(key);
    this.witness.record('merchant_reference', merchantReference, existing !== undefined);
    if (existing) return { payment: existing, replayed: true };

    const accepted = accept();
    const scenario = payoutScenarioFor(testValueSuffix(accepted.testValue));
    // Test value 05: the call arrives but is lost before the provider stores anything.
    if (scenario.submission === 'lost') throw sandboxError(503, 'SERVICE_UNAVAILABLE', 'temporarily unavailable; nothing was recorded');
    const payment = this.pendingPayment(provider, merchantReference, {
      providerReference: accepted.providerReference,
      amount: accepted.amount,
      productCode: accepted.productCode ?? null,
      misstated: scenario.misstated,
    });
    this.payments.set(key, payment);
    this.accepted.set(key, accepted);

    if (scenario.outcome === 'reject') this.markRejected(payment);
    else if (scenario.outcome === 'pay') {
      const pay = () => {
        this.markPaid(payment, accepted);
        if (scenario.reverseAfterPayment) this.scheduler.after(this.options.reversalDelayMs, () => this.markReversed(payment));
      };
      if (accepted.settlement === 'at_submission') pay();
      else this.scheduler.after(this.options.rtcSettleDelayMs, pay);
    }
    // 'never_known' stays PENDING for ever.

    if (scenario.submission === 'hangs') await this.scheduler.hold(this.options.timeoutHangMs);
    return { payment, replayed: false };
  }

  find(provider: PayoutProviderName, merchantReference: string): PayoutPayment | undefined {
    return this.payments.get(keyOf(provider, merchantReference));
  }

  /** The payment, or the provider's 404 naming it as the provider does (`what`). */
  get(provider: PayoutProviderName, merchantReference: string, what = 'payment'): PayoutPayment {
    const payment = this.find(provider, merchantReference);
    if (!payment) throw notFound(what);
    return payment;
  }

  /** Every payment of every provider, in submission order (settlement reports). */
  all(): PayoutPayment[] {
    return [...this.payments.values()];
  }

  /**
   * Sandbox control: a paid payment is reversed now (an uncollected cash-send expiring, a bank
   * return), however long after payment. Returns undefined when there is no paid payment.
   */
  reverseNow(provider: PayoutProviderName, merchantReference: string): PayoutPayment | undefined {
    const payment = this.find(provider, merchantReference);
    if (payment?.status !== 'PAID') return undefined;
    this.markReversed(payment);
    return payment;
  }


  /** A payment just recorded: PENDING, nothing delivered, paid or reversed yet. */
  private pendingPayment(
    provider: PayoutProviderName,
    merchantReference: string,
    fields: Pick<PayoutPayment, 'providerReference' | 'amount' | 'productCode' | 'misstated'>,
  ): PayoutPayment {
    return {
      provider,
      merchantReference,
      providerReference: fields.providerReference,
      amount: fields.amount,
      productCode: fields.productCode,
      status: 'PENDING',
      rejectionReason: null,
      delivery: null,
      createdAt: this.options.clock.now(),
      paidAt: null,
      reversedAt: null,
      misstated: fields.misstated,
    };
  }
  /**
   * Sandbox control: a payment still PENDING (test value 04, "never known") gets its final answer
   * now, as a provider that answers late would. Answers the payment, or undefined when there is
   * none or it is already final.
   */
  settleLate(provider: PayoutProviderName, merchantReference: string, status: 'PAID' | 'REJECTED'): PayoutPayment | undefined {
    const key = keyOf(provider, merchantReference);
    const payment = this.payments.get(key);
    if (!payment || payment.status !== 'PENDING') return undefined;
    if (status === 'PAID') this.markPaid(payment, this.accepted.get(key)!);
    else this.markRejected(payment);
    return payment;
  }

  /**
   * Sandbox control: the provider pays after all a payout the gateway has released: a submission
   * it "lost" (test value 05: nothing was recorded, so `amount` says what it pays), or a payment
   * still PENDING or REJECTED (a staff "failed" resolution the provider contradicts). Paid now,
   * with no callback: a lookup or the settlement report shows it. Undefined when the payment is
   * already paid or reversed, or unknown and no amount is given.
   */
  payAfterRelease(provider: PayoutProviderName, merchantReference: string, amount: string | undefined): PayoutPayment | undefined {
    const key = keyOf(provider, merchantReference);
    const existing = this.payments.get(key);
    if (existing) {
      if (existing.status !== 'PENDING' && existing.status !== 'REJECTED') return undefined;
      existing.rejectionReason = null;
      this.markPaid(existing, this.accepted.get(key)!);
      return existing;
    }
    if (amount === undefined) return undefined;
    const payment = this.pendingPayment(provider, merchantReference, { providerReference: randomUUID(), amount, productCode: null, misstated: 'none' });
    this.payments.set(key, payment);
    payment.status = 'PAID';
    payment.paidAt = this.options.clock.now();
    return payment;
  }

  private markPaid(payment: PayoutPayment, accepted: AcceptedPayout): void {
    payment.status = 'PAID';
    payment.paidAt = this.options.clock.now();
    payment.delivery = accepted.issueDelivery?.() ?? null;
  }

  private markRejected(payment: PayoutPayment): void {
    payment.status = 'REJECTED';
    payment.rejectionReason = 'DECLINED_BY_PROVIDER';
  }

  private markReversed(payment: PayoutPayment): void {
    payment.status = 'REVERSED';
    payment.reversedAt = this.options.clock.now();
  }
}

function keyOf(provider: PayoutProviderName, merchantReference: string): string {
  return `${provider}\u0000${merchantReference}`;
}
