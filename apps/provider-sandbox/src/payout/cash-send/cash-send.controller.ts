import { randomInt, randomUUID } from 'node:crypto';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CASH_SEND_RAILS, type CashSendRail } from '#providers';
import { JsonBody } from '../../json-body.js';
import { SANDBOX_OPTIONS, type SandboxOptions } from '../../sandbox-options.js';
import { notFound, sandboxError } from '../../sandbox-errors.js';
import { payoutPaymentView, type PayoutPayment } from '../payout-payment.js';
import { PayoutPaymentBook } from '../payout-payment-book.service.js';
import { payoutAmountOf } from '../payout-request-fields.js';
import { NO_RESENDS_YET, decideSmsResend, type SmsResendState } from './sms-resend-policy.js';

const CASH_LIMITS = { minCents: 1_000n, maxCents: 500_000n };
const CASH_STEP_CENTS = 1_000n;
const COLLECTION_VALIDITY_MS = 30 * 24 * 60 * 60 * 1000;

/** Bank cash-send ("send cash to a cellphone"): paid at submission, collected at an ATM with PIN and serial. */
@Controller('cashsend/v1/:rail/payments')
export class CashSendController {
  private readonly smsResends = new Map<string, SmsResendState>();

  constructor(
    private readonly book: PayoutPaymentBook,
    @Inject(SANDBOX_OPTIONS) private readonly options: SandboxOptions,
  ) {}

  /** 201 for a new payment, 200 when the merchant reference was already known (the existing payment). */
  @Post()
  async submit(@Param('rail') rawRail: string, @Body() raw: unknown, @Res({ passthrough: true }) response: Response) {
    const rail = cashSendRailOf(rawRail);
    const body = JsonBody.of(raw);
    const { payment, replayed } = await this.book.submit(rail, body, () => {
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
    response.status(replayed ? 200 : 201);
    return cashSendView(payment);
  }

  @Get(':merchantReference')
  get(@Param('rail') rail: string, @Param('merchantReference') merchantReference: string) {
    return cashSendView(this.book.get(cashSendRailOf(rail), merchantReference));
  }

  /** Sends the collection SMS again; see sms-resend-policy.ts for the cap and cooldown. */
  @Post(':merchantReference/resend-sms')
  @HttpCode(200)
  resendSms(@Param('rail') rawRail: string, @Param('merchantReference') merchantReference: string) {
    const rail = cashSendRailOf(rawRail);
    const payment = this.book.get(rail, merchantReference);
    if (payment.status !== 'PAID') throw sandboxError(422, 'PAYMENT_NOT_PAID', 'only a paid payment has an SMS to resend');
    const key = `${rail}\u0000${merchantReference}`;
    const decision = decideSmsResend(this.smsResends.get(key) ?? NO_RESENDS_YET, this.options.clock.now().getTime());
    if (!decision.allowed) {
      throw sandboxError(429, 'SMS_RESEND_LIMITED', 'SMS resend limit reached; try again later', {
        retry_after_seconds: decision.retryAfterSeconds,
      });
    }
    this.smsResends.set(key, decision.next);
    return { merchant_reference: merchantReference, resends_remaining: decision.remaining };
  }
}

function cashSendView(payment: PayoutPayment) {
  return { rail: payment.provider, provider_reference: payment.providerReference, ...payoutPaymentView(payment) };
}

export function cashSendRailOf(raw: string): CashSendRail {
  const rail = CASH_SEND_RAILS.find((candidate) => candidate === raw);
  if (!rail) throw notFound('rail');
  return rail;
}
