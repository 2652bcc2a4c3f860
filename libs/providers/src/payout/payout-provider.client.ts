import { ProviderHttpTransport } from '../http/provider-http-transport.js';
import type { ProviderClientOptions } from '../http/provider-client-options.js';
import { ProviderHttpError } from '../provider-errors.js';
import { SecretValue } from '../secret-value.js';
import { fetchSettlementReport, type SettlementReport } from '../settlement/settlement-report.js';
import { payoutOutcomeOf, type PayoutOutcome } from './payout-outcome.js';

export const CASH_SEND_RAILS = ['bank_a_instant_money', 'bank_b_cardless'] as const;
export type CashSendRail = (typeof CASH_SEND_RAILS)[number];

/** Where a payout was sent; each keeps its own merchant-reference namespace. */
export type PayoutChannel = CashSendRail | 'rtc_eft' | 'voucher';

export interface CashSendRecipient {
  firstName: string;
  middleName?: string | null;
  surname: string;
  idType: 'RSAID' | 'Passport';
  idNumber: string;
  countryOfIssue?: string;
  nationality?: string;
}

export interface CashSendSubmission {
  merchantReference: string;
  /** ZAR decimal string, a multiple of R10. */
  amount: string;
  /** 27XXXXXXXXX; the collection SMS goes here. */
  phone: string;
  recipient: CashSendRecipient;
}

export interface RtcEftSubmission {
  merchantReference: string;
  amount: string;
  bankAccount: { bankName: string; accountNumber: string; accountName: string; branchCode: string };
  narration?: string;
}

export interface VoucherSubmission {
  merchantReference: string;
  amount: string;
  productCode: '311' | '1393' | '1652' | '1651';
  vendorSlug: string;
  accountAlias: string;
}

export interface PayoutDelivery {
  pin: string | null;
  serial: string | null;
  expiresAt: string | null;
  instructions: string | null;
}

export interface PayoutProviderPayment {
  outcome: PayoutOutcome;
  /** False when the provider has no payment under the merchant reference (outcome `unknown`). */
  found: boolean;
  merchantReference: string;
  providerStatus: string | null;
  /** The provider's own id; for vouchers the voucher gateway's transaction UUID. */
  providerReference: string | null;
  amount: string | null;
  rejectionReason: string | null;
  paidAt: string | null;
  reversedAt: string | null;
  /** PIN, serial and expiry for a paid cash-send or voucher. */
  delivery: SecretValue<PayoutDelivery> | null;
  /** True when the provider answered with a payment it already held for the merchant reference. */
  replayed: boolean;
}

interface PaymentWire {
  merchant_reference: string;
  status: string;
  amount: string;
  rejection_reason: string | null;
  provider_reference?: string;
  transaction_uuid?: string;
  pin?: string | null;
  serial?: string | null;
  expires_at?: string | null;
  instructions?: string | null;
  paid_at: string | null;
  reversed_at: string | null;
}

const PROVIDER = 'payout provider';

/**
 * The payout providers behind one base URL: cash-send rails (`/cashsend/v1/{rail}`), RTC EFT
 * (`/rtc/v1`) and vouchers (`/vouchers/v1`). Submissions are never retried: an error whose
 * `outcomeUnknown` is true is resolved with getPayoutStatus on the same merchant reference.
 */
export class PayoutProviderClient {
  private readonly http: ProviderHttpTransport;

  constructor(options: ProviderClientOptions) {
    this.http = new ProviderHttpTransport(PROVIDER, options);
  }

  async submitCashSend(rail: CashSendRail, submission: CashSendSubmission): Promise<PayoutProviderPayment> {
    const { recipient } = submission;
    // Built field by field: date of birth, email and metadata are never sent to a provider.
    return this.submit(`submitCashSend ${rail}`, `${cashSendBase(rail)}/payments`, {
      merchant_reference: submission.merchantReference,
      amount: submission.amount,
      phone: submission.phone,
      recipient: {
        first_name: recipient.firstName,
        middle_name: recipient.middleName ?? undefined,
        surname: recipient.surname,
        id_type: recipient.idType,
        id_number: recipient.idNumber,
        country_of_issue: recipient.countryOfIssue,
        nationality: recipient.nationality,
      },
    });
  }

  async submitRtcEft(submission: RtcEftSubmission): Promise<PayoutProviderPayment> {
    const { bankAccount } = submission;
    return this.submit('submitRtcEft', '/rtc/v1/payments', {
      merchant_reference: submission.merchantReference,
      amount: submission.amount,
      bank_account: {
        bank_name: bankAccount.bankName,
        account_number: bankAccount.accountNumber,
        account_name: bankAccount.accountName,
        branch_code: bankAccount.branchCode,
      },
      narration: submission.narration,
    });
  }

  /** Exactly the five fields the voucher provider accepts: no recipient identity or phone can travel. */
  async submitVoucher(submission: VoucherSubmission): Promise<PayoutProviderPayment> {
    return this.submit('submitVoucher', '/vouchers/v1/vouchers', {
      merchant_reference: submission.merchantReference,
      amount: submission.amount,
      product_code: submission.productCode,
      vendor_slug: submission.vendorSlug,
      account_alias: submission.accountAlias,
    });
  }

  async getPayoutStatus(channel: PayoutChannel, merchantReference: string): Promise<PayoutProviderPayment> {
    const operation = op(`getPayoutStatus ${channel}`);
    const response = await this.http.get<PaymentWire>({
      operation,
      path: `${statusBase(channel)}/${encodeURIComponent(merchantReference)}`,
      notFoundAsNull: true,
    });
    if (response === null) return notFoundPayment(merchantReference);
    return paymentOf(response.body, operation, false);
  }

  /** Asks the cash-send rail to send the collection SMS again; a 429 carries retryAfterSeconds. */
  async resendSms(rail: CashSendRail, merchantReference: string): Promise<{ resendsRemaining: number }> {
    const response = await this.http.post<{ resends_remaining: number }>(
      {
        operation: op(`resendSms ${rail}`),
        path: `${cashSendBase(rail)}/payments/${encodeURIComponent(merchantReference)}/resend-sms`,
      },
      {},
    );
    return { resendsRemaining: response.body.resends_remaining };
  }

  /** One payout provider's settlement report of one Johannesburg day (YYYY-MM-DD), every page. */
  async getSettlementReport(channel: PayoutChannel, day: string): Promise<SettlementReport> {
    const base = channel === 'rtc_eft' ? '/rtc/v1' : channel === 'voucher' ? '/vouchers/v1' : cashSendBase(channel);
    return fetchSettlementReport(this.http, op(`getSettlementReport ${channel}`), `${base}/settlement-reports`, day, 'PAID');
  }

  private async submit(name: string, path: string, body: Record<string, unknown>): Promise<PayoutProviderPayment> {
    const operation = op(name);
    const response = await this.http.post<PaymentWire>({ operation, path }, body);
    // The providers answer 200 (not 201) when the merchant reference was already known.
    return paymentOf(response.body, operation, response.status === 200);
  }
}

function op(name: string): string {
  return `${PROVIDER} ${name}`;
}

function cashSendBase(rail: CashSendRail): string {
  if (!CASH_SEND_RAILS.includes(rail)) throw new RangeError(`unknown cash-send rail ${String(rail)}`);
  return `/cashsend/v1/${rail}`;
}

function statusBase(channel: PayoutChannel): string {
  if (channel === 'rtc_eft') return '/rtc/v1/payments';
  if (channel === 'voucher') return '/vouchers/v1/vouchers';
  return `${cashSendBase(channel)}/payments`;
}

function notFoundPayment(merchantReference: string): PayoutProviderPayment {
  return {
    outcome: 'unknown',
    found: false,
    merchantReference,
    providerStatus: null,
    providerReference: null,
    amount: null,
    rejectionReason: null,
    paidAt: null,
    reversedAt: null,
    delivery: null,
    replayed: false,
  };
}

function paymentOf(wire: PaymentWire, operation: string, replayed: boolean): PayoutProviderPayment {
  if (typeof wire?.merchant_reference !== 'string' || typeof wire.status !== 'string') {
    throw new ProviderHttpError(operation, 200, 'payment without merchant reference or status');
  }
  const hasDelivery = typeof wire.pin === 'string' || typeof wire.serial === 'string';
  return {
    outcome: payoutOutcomeOf(wire.status),
    found: true,
    merchantReference: wire.merchant_reference,
    providerStatus: wire.status,
    providerReference: wire.transaction_uuid ?? wire.provider_reference ?? null,
    amount: wire.amount ?? null,
    rejectionReason: wire.rejection_reason ?? null,
    paidAt: wire.paid_at ?? null,
    reversedAt: wire.reversed_at ?? null,
    delivery: hasDelivery
      ? new SecretValue({
          pin: wire.pin ?? null,
          serial: wire.serial ?? null,
          expiresAt: wire.expires_at ?? null,
          instructions: wire.instructions ?? null,
        })
      : null,
    replayed,
  };
}
