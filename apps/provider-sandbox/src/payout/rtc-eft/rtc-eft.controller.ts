import { Body, Controller, Get, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { payoutPaymentView, type PayoutPayment } from '../payout-payment.js';
import { RtcEftPayments } from './rtc-eft.service.js';

@Controller('rtc/v1/payments')
export class RtcEftController {
  constructor(private readonly payments: RtcEftPayments) {}

  /** 201 for a new payment, 200 when the merchant reference was already known (the existing payment). */
  @Post()
  async submit(@Body() body: unknown, @Res({ passthrough: true }) response: Response) {
    const { payment, replayed } = await this.payments.submit(body);
    response.status(replayed ? 200 : 201);
    return rtcEftView(payment);
  }

  @Get(':merchantReference')
  get(@Param('merchantReference') merchantReference: string) {
    return rtcEftView(this.payments.find(merchantReference));
  }
}

/** A bank credit has no PIN, serial or expiry. */
function rtcEftView(payment: PayoutPayment) {
  const { pin: _pin, serial: _serial, expires_at: _expiresAt, ...view } = payoutPaymentView(payment);
  return { provider_reference: payment.providerReference, ...view };
}
