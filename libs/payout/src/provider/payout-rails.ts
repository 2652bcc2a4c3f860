import { Injectable } from '@nestjs/common';
import { PayoutProviderClient, type PayoutChannel, type PayoutProviderPayment } from '#providers';
import { GatewayEnv } from '#config';
import { methodDefinition, type PayoutMethod } from '../model/payout-method-catalogue.js';
import type { StoredRecipient } from '../model/payout-request.js';

export interface RailSubmission {
  method: PayoutMethod;
  merchantReference: string;
  amount: string;
  recipient: StoredRecipient;
  /** Vouchers only (the other rails never send it). */
  vendorSlug?: string;
}

/**
 * What each provider receives (payout contract rules 8, 10, 12). Requests are built field by
 * field, so date of birth, email and metadata cannot travel, and a voucher request carries only
 * the merchant reference, amount, product code, vendor slug and the configured account alias.
 */
@Injectable()
export class PayoutRails {
  constructor(
    private readonly client: PayoutProviderClient,
    private readonly config: GatewayEnv,
  ) {}

  submit(submission: RailSubmission): Promise<PayoutProviderPayment> {
    const definition = methodDefinition(submission.method);
    const { recipient } = submission;
    switch (definition.kind) {
      case 'cash':
        return this.client.submitCashSend(definition.channel as 'bank_a_instant_money' | 'bank_b_cardless', {
          merchantReference: submission.merchantReference,
          amount: submission.amount,
          phone: recipient.phone,
          recipient: {
            firstName: recipient.first_name,
            middleName: recipient.middle_name,
            surname: recipient.surname,
            idType: recipient.id_type,
            idNumber: recipient.id_number,
            countryOfIssue: recipient.country_of_issue,
            nationality: recipient.nationality,
          },
        });
      case 'bank': {
        const account = recipient.bank_account;
        if (!account) throw new Error(`payout ${submission.merchantReference}: rtc_eft without a bank account`);
        return this.client.submitRtcEft({
          merchantReference: submission.merchantReference,
          amount: submission.amount,
          bankAccount: { bankName: account.bank_name, accountNumber: account.account_number, accountName: account.account_name, branchCode: account.branch_code },
          // The contract's statement narration is the merchant reference.
          narration: submission.merchantReference,
        });
      }
      case 'voucher':
        if (submission.vendorSlug === undefined) throw new Error(`payout ${submission.merchantReference}: voucher without the vendor slug`);
        return this.client.submitVoucher({
          merchantReference: submission.merchantReference,
          amount: submission.amount,
          productCode: definition.productCode!,
          vendorSlug: submission.vendorSlug,
          accountAlias: this.config.VOUCHER_ACCOUNT_ALIAS,
        });
    }
  }

  lookup(method: PayoutMethod, merchantReference: string): Promise<PayoutProviderPayment> {
    return this.client.getPayoutStatus(methodDefinition(method).channel as PayoutChannel, merchantReference);
  }

  resendSms(method: 'bank_a_instant_money' | 'bank_b_cardless', merchantReference: string): Promise<{ resendsRemaining: number }> {
    return this.client.resendSms(method, merchantReference);
  }
}

/** The client, configured from GatewayEnv; production without URL or key refuses every call. */
export function createPayoutProviderClient(config: GatewayEnv): PayoutProviderClient {
  return new PayoutProviderClient({
    baseUrl: config.PAYOUT_PROVIDER_BASE_URL,
    apiKey: config.PAYOUT_PROVIDER_API_KEY,
    timeoutMs: config.PAYOUT_PROVIDER_TIMEOUT_MS,
    production: config.isProduction,
  });
}
