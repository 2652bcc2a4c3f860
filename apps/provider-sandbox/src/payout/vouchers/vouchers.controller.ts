import { Body, Controller, Get, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { payoutPaymentView, type PayoutPayment } from '../payout-payment.js';
import { VOUCHER_PRODUCTS, VoucherPayments } from './vouchers.service.js';

@Controller('vouchers/v1/vouchers')
export class VouchersController {
  constructor(private readonly vouchers: VoucherPayments) {}

  /** 201 for a new voucher, 200 when the merchant reference was already known (the existing voucher). */
  @Post()
  async submit(@Body() body: unknown, @Res({ passthrough: true }) response: Response) {
    const { payment, replayed } = await this.vouchers.submit(body);
    response.status(replayed ? 200 : 201);
    return voucherView(payment);
  }

  @Get(':merchantReference')
  get(@Param('merchantReference') merchantReference: string) {
    return voucherView(this.vouchers.find(merchantReference));
  }
}

/** The voucher gateway names its own id `transaction_uuid`; it is our provider_reference. */
function voucherView(payment: PayoutPayment) {
  const view = payoutPaymentView(payment);
  return {
    transaction_uuid: payment.providerReference,
    product_code: payment.productCode,
    ...view,
    instructions: view.pin !== null ? (VOUCHER_PRODUCTS.get(payment.productCode ?? '')?.instructions ?? null) : null,
  };
}
