import { CASH_SEND_RAILS, type PayoutChannel } from '#providers';

/** The four payout providers the sandbox plays (the payout client's channels); each keeps its own merchant-reference namespace. */
export type PayoutProviderName = PayoutChannel;
export const PAYOUT_PROVIDERS: readonly PayoutProviderName[] = [...CASH_SEND_RAILS, 'rtc_eft', 'voucher'];

export type PayoutPaymentStatus = 'PENDING' | 'PAID' | 'REJECTED' | 'REVERSED';

export interface PayoutDelivery {
  pin: string;
  serial: string;
  expiresAt: Date;
}

export interface PayoutPayment {
  provider: PayoutProviderName;
  merchantReference: string;
  providerReference: string;
  amount: string;
  /** Voucher product code; null for cash-send and bank payments. */
  productCode: string | null;
  status: PayoutPaymentStatus;
  rejectionReason: string | null;
  /** Issued when the payment is paid (cash-send and vouchers); shown only while it stays PAID. */
  delivery: PayoutDelivery | null;
  createdAt: Date;
  paidAt: Date | null;
  reversedAt: Date | null;
  /** Test values 06/07: every answer about this payment misstates its amount or merchant reference. */
  misstated: 'none' | 'amount' | 'merchant_reference';
}

/** What a payout test value makes the provider do (README, "Sandbox test values"). */
export interface PayoutScenario {
  outcome: 'pay' | 'reject' | 'never_known';
  /** `lost`: the provider answers 503 and records nothing (a submission lost before the provider stored it). */
  submission: 'answers' | 'hangs' | 'lost';
  reverseAfterPayment: boolean;
  misstated: PayoutPayment['misstated'];
}

const ORDINARY: PayoutScenario = { outcome: 'pay', submission: 'answers', reverseAfterPayment: false, misstated: 'none' };

const PAYOUT_TEST_VALUES: Record<string, PayoutScenario> = {
  '01': { ...ORDINARY, outcome: 'reject' },
  '02': { ...ORDINARY, submission: 'hangs' },
  '03': { ...ORDINARY, reverseAfterPayment: true },
  '04': { ...ORDINARY, outcome: 'never_known' },
  '05': { ...ORDINARY, submission: 'lost' },
  '06': { ...ORDINARY, misstated: 'amount' },
  '07': { ...ORDINARY, misstated: 'merchant_reference' },
};

export function payoutScenarioFor(suffix: string | null): PayoutScenario {
  return (suffix !== null ? PAYOUT_TEST_VALUES[suffix] : undefined) ?? ORDINARY;
}

/** Fields every payout provider view shares; the delivery only while the payment stays PAID. */
export function payoutPaymentView(payment: PayoutPayment) {
  const delivery = payment.status === 'PAID' ? payment.delivery : null;
  return {
    merchant_reference: payment.misstated === 'merchant_reference' ? `${payment.merchantReference}X` : payment.merchantReference,
    status: payment.status,
    amount: payment.misstated === 'amount' ? oneRandMore(payment.amount) : payment.amount,
    currency: 'ZAR',
    rejection_reason: payment.rejectionReason,
    pin: delivery?.pin ?? null,
    serial: delivery?.serial ?? null,
    expires_at: delivery?.expiresAt.toISOString() ?? null,
    created_at: payment.createdAt.toISOString(),
    paid_at: payment.paidAt?.toISOString() ?? null,
    reversed_at: payment.reversedAt?.toISOString() ?? null,
  };
}

/** "150.00" → "151.00", exactly (the amount is a two-place decimal the sandbox validated). */
function oneRandMore(amount: string): string {
  const [rand, cents = '00'] = amount.split('.');
  return `${BigInt(rand) + 1n}.${cents.padEnd(2, '0')}`;
}
