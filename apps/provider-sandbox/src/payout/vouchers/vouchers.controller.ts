import { randomInt, randomUUID } from 'node:crypto';
import { Body, Controller, Get, Inject, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { JsonBody } from '../../json-body.js';
import { SANDBOX_OPTIONS, type SandboxOptions } from '../../sandbox-options.js';
import { badRequest } from '../../sandbox-errors.js';
import { payoutPaymentView, type PayoutPayment } from '../payout-payment.js';
import { PayoutPaymentBook } from '../payout-payment-book.service.js';
import { payoutAmountOf } from '../payout-request-fields.js';

/** Voucher catalogue dated 2026-09-15 (payout contract): product code to limits in cents. */
export const VOUCHER_PRODUCTS = new Map<string, { minCents: bigint; maxCents: bigint; instructions: string }>([
  ['311', { minCents: 100n, maxCents: 400_000n, instructions: 'Redeem at any participating till point by quoting the 16-digit PIN.' }],
  ['1393', { minCents: 200n, maxCents: 300_000n, instructions: 'Redeem online at checkout by entering the PIN as a voucher code.' }],
  ['1652', { minCents: 200n, maxCents: 200_000n, instructions: 'Dial the USSD code on the voucher and enter the PIN to redeem.' }],
  ['1651', { minCents: 200n, maxCents: 250_000n, instructions: 'Redeem in store or in the app; the serial number identifies the voucher.' }],
]);

/**
 * The only fields the voucher provider accepts. Recipient identity and phone numbers must never
 * reach it (payout contract rule 12), so anything else is refused rather than ignored.
 */
const ALLOWED_FIELDS = new Set(['merchant_reference', 'amount', 'product_code', 'vendor_slug', 'account_alias']);

const VOUCHER_VALIDITY_MS = 365 * 24 * 60 * 60 * 1000;

@Controller('vouchers/v1/vouchers')
export class VouchersController {
  constructor(
    private readonly book: PayoutPaymentBook,
    @Inject(SANDBOX_OPTIONS) private readonly options: SandboxOptions,
  ) {}

  /** 201 for a new voucher, 200 when the merchant reference was already known (the existing voucher). */
  @Post()
  async submit(@Body() raw: unknown, @Res({ passthrough: true }) response: Response) {
    const body = JsonBody.of(raw);
    const refused = body.keys().filter((key) => !ALLOWED_FIELDS.has(key));
    if (refused.length > 0) {
      throw badRequest('FIELD_NOT_ALLOWED', `the voucher API does not accept: ${refused.sort().join(', ')}`);
    }
    const { payment, replayed } = await this.book.submit('voucher', body, () => {
      const productCode = body.requiredString('product_code');
      const product = VOUCHER_PRODUCTS.get(productCode);
      if (!product) throw badRequest('UNKNOWN_PRODUCT_CODE', `unknown product_code ${productCode}`);
      const amount = payoutAmountOf(body, product);
      body.requiredString('vendor_slug', /^[a-z0-9][a-z0-9-]{0,63}$/);
      body.requiredString('account_alias');
      return {
        amount: amount.text,
        productCode,
        // Vouchers carry no phone or account, so the cents of the amount pick the test value.
        testValue: amount.text,
        providerReference: randomUUID(),
        settlement: 'at_submission',
        issueDelivery: () => ({
          pin: Array.from({ length: 16 }, () => randomInt(10)).join(''),
          serial: `VS${String(randomInt(1e9, 1e10))}`,
          expiresAt: new Date(this.options.clock.now().getTime() + VOUCHER_VALIDITY_MS),
        }),
      };
    });
    response.status(replayed ? 200 : 201);
    return voucherView(payment);
  }

  @Get(':merchantReference')
  get(@Param('merchantReference') merchantReference: string) {
    return voucherView(this.book.get('voucher', merchantReference, 'voucher'));
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
