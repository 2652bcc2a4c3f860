import { randomInt, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CASH_SEND_RAILS, type CashSendRail } from '#providers';
import { JsonBody } from '../../json-body.js';
import { SANDBOX_OPTIONS, type SandboxOptions } from '../../sandbox-options.js';
import { notFound, sandboxError } from '../../sandbox-errors.js';
import type { PayoutPayment } from '../payout-payment.js';
import { PayoutPaymentBook, type SubmittedPayout } from '../payout-payment-book.service.js';
import { payoutAmountOf } from '../payout-request-fields.js';
import { NO_RESENDS_YET, decideSmsResend, type SmsResendState } from './sms-resend-policy.js';

const CASH_LIMITS = { minCents: 1_000n, maxCents: 500_000n };
const CASH_STEP_CENTS = 1_000n;
const COLLECTION_VALIDITY_MS = 30 * 24 * 60 * 60 * 1000;

/** Bank cash-send ("send cash to a cellphone"): paid at submission, collected at an ATM with PIN and serial. */
@Injectable()
export class CashSendPayments {
  private readonly smsResends = new Map<string, SmsResendState>();

  constructor(
    private readonly book: PayoutPaymentBook,
    @Inject(SANDBOX_OPTIONS) private readonly options: SandboxOptions,
  ) {}

  submit(rail: CashSendRail, raw: unknown): Promise<SubmittedPayout> {
    const body = JsonBody.of(raw);
    return this.book.submit(rail, body, () => {
      const amount = payoutAmountOf(body, CASH_LIMITS);
      if (amount.cents % CASH_STEP_CENTS !== 0n) {
        throw sandboxError(422, 'AMOUNT_INCREMENT_INVALID', 'cash-send amounts must be multiples of R10');
      }
      const phone = body.requiredString('phone', /^27\d{9}$/);
      const recipient = body.requiredObject('recipient');
      recipient.requiredString('first_name');
      recipient.requiredString('surname');
      recipient.requiredString('id_type', /^(RSAID|Passport)$/);
      recipient.requiredString('id_number');
      return {
        amount: amount.text,
        testValue: phone,
        providerReference: randomUUID(),
        settlement: 'at_submission',
        issueDelivery: () => ({
          pin: String(randomInt(10_000, 100_000)),
          serial: String(randomInt(1e9, 1e10)),
          expiresAt: new Date(this.options.clock.now().getTime() + COLLECTION_VALIDITY_MS),
        }),
      };
    });
  }

  find(rail: CashSendRail, merchantReference: string): PayoutPayment {
    return this.book.get(rail, merchantReference);
  }

  /** Sends the collection SMS again; see sms-resend-policy.ts for the cap and cooldown. */
  resendSms(rail: CashSendRail, merchantReference: string): { resends_remaining: number } {
    const payment = this.find(rail, merchantReference);
    if (payment.status !== 'PAID') throw sandboxError(422, 'PAYMENT_NOT_PAID', 'only a paid payment has an SMS to resend');
    const key = `${rail}\u0000${merchantReference}`;
    const decision = decideSmsResend(this.smsResends.get(key) ?? NO_RESENDS_YET, this.options.clock.now().getTime());
    if (!decision.allowed) {
      throw sandboxError(429, 'SMS_RESEND_LIMITED', 'SMS resend limit reached; try again later', {
        retry_after_seconds: decision.retryAfterSeconds,
      });
    }
    this.smsResends.set(key, decision.next);
    return { resends_remaining: decision.remaining };
  }
}

export function cashSendRailOf(raw: string): CashSendRail {
  const rail = CASH_SEND_RAILS.find((candidate) => candidate === raw);
  if (!rail) throw notFound('rail');
  return rail;
}
