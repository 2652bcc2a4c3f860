import { randomInt, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { JsonBody } from '../../json-body.js';
import { SANDBOX_OPTIONS, type SandboxOptions } from '../../sandbox-options.js';
import { badRequest } from '../../sandbox-errors.js';
import type { PayoutPayment } from '../payout-payment.js';
import { PayoutPaymentBook, type SubmittedPayout } from '../payout-payment-book.service.js';
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

@Injectable()
export class VoucherPayments {
  constructor(
    private readonly book: PayoutPaymentBook,
    @Inject(SANDBOX_OPTIONS) private readonly options: SandboxOptions,
  ) {}

  submit(raw: unknown): Promise<SubmittedPayout> {
    const body = JsonBody.of(raw);
    const refused = body.keys().filter((key) => !ALLOWED_FIELDS.has(key));
    if (refused.length > 0) {
      throw badRequest('FIELD_NOT_ALLOWED', `the voucher API does not accept: ${refused.sort().join(', ')}`);
    }
    return this.book.submit('voucher', body, () => {
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
  }

  find(merchantReference: string): PayoutPayment {
    return this.book.get('voucher', merchantReference, 'voucher');
  }
}
