import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { JsonBody } from '../../json-body.js';
import { payoutPaymentView, type PayoutPayment } from '../payout-payment.js';
import { PayoutPaymentBook } from '../payout-payment-book.service.js';
import { payoutAmountOf } from '../payout-request-fields.js';

const RTC_LIMITS = { minCents: 1n, maxCents: 5_000_000n };

/** Real-time clearing EFT: accepted as PENDING, PAID once the receiving bank settles. */
@Controller('rtc/v1/payments')
export class RtcEftController {
  constructor(private readonly book: PayoutPaymentBook) {}

  /** 201 for a new payment, 200 when the merchant reference was already known (the existing payment). */
  @Post()
  async submit(@Body() raw: unknown, @Res({ passthrough: true }) response: Response) {
    const body = JsonBody.of(raw);
    const { payment, replayed } = await this.book.submit('rtc_eft', body, () => {
      const amount = payoutAmountOf(body, RTC_LIMITS);
      const bankAccount = body.requiredObject('bank_account');
      bankAccount.requiredString('bank_name');
      const accountNumber = bankAccount.requiredString('account_number', /^\d{6,16}$/);
      bankAccount.requiredString('account_name');
      bankAccount.requiredString('branch_code', /^\d{6}$/);
      body.optionalString('narration', /^.{1,64}$/);
      return {
        amount: amount.text,
        testValue: accountNumber,
        providerReference: randomUUID(),
        settlement: 'after_settle_delay',
        issueDelivery: null,
      };
    });
    response.status(replayed ? 200 : 201);
    return rtcEftView(payment);
  }

  @Get(':merchantReference')
  get(@Param('merchantReference') merchantReference: string) {
    return rtcEftView(this.book.get('rtc_eft', merchantReference));
  }
}

/** A bank credit has no PIN, serial or expiry. */
function rtcEftView(payment: PayoutPayment) {
  const { pin: _pin, serial: _serial, expires_at: _expiresAt, ...view } = payoutPaymentView(payment);
  return { provider_reference: payment.providerReference, ...view };
}
