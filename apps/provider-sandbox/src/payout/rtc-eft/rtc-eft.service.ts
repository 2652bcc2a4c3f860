import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JsonBody } from '../../json-body.js';
import type { PayoutPayment } from '../payout-payment.js';
import { PayoutPaymentBook, type SubmittedPayout } from '../payout-payment-book.service.js';
import { payoutAmountOf } from '../payout-request-fields.js';

const RTC_LIMITS = { minCents: 1n, maxCents: 5_000_000n };

/** Real-time clearing EFT: accepted as PENDING, PAID once the receiving bank settles. */
@Injectable()
export class RtcEftPayments {
  constructor(private readonly book: PayoutPaymentBook) {}

  submit(raw: unknown): Promise<SubmittedPayout> {
    const body = JsonBody.of(raw);
    return this.book.submit('rtc_eft', body, () => {
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
  }

  find(merchantReference: string): PayoutPayment {
    return this.book.get('rtc_eft', merchantReference);
  }
}
