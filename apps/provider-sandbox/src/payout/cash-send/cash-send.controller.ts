import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { payoutPaymentView, type PayoutPayment } from '../payout-payment.js';
import { CashSendPayments, cashSendRailOf } from './cash-send.service.js';

@Controller('cashsend/v1/:rail/payments')
export class CashSendController {
  constructor(private readonly payments: CashSendPayments) {}

  /** 201 for a new payment, 200 when the merchant reference was already known (the existing payment). */
  @Post()
  async submit(@Param('rail') rail: string, @Body() body: unknown, @Res({ passthrough: true }) response: Response) {
    const { payment, replayed } = await this.payments.submit(cashSendRailOf(rail), body);
    response.status(replayed ? 200 : 201);
    return cashSendView(payment);
  }

  @Get(':merchantReference')
  get(@Param('rail') rail: string, @Param('merchantReference') merchantReference: string) {
    return cashSendView(this.payments.find(cashSendRailOf(rail), merchantReference));
  }

  @Post(':merchantReference/resend-sms')
  @HttpCode(200)
  resendSms(@Param('rail') rail: string, @Param('merchantReference') merchantReference: string) {
    return { merchant_reference: merchantReference, ...this.payments.resendSms(cashSendRailOf(rail), merchantReference) };
  }
}

function cashSendView(payment: PayoutPayment) {
  return { rail: payment.provider, provider_reference: payment.providerReference, ...payoutPaymentView(payment) };
}
