import type { PayoutChannel, VoucherSubmission } from '#providers';

export const PAYOUT_METHODS = [
  'bank_a_instant_money',
  'bank_b_cardless',
  'rtc_eft',
  'voucher_type_1',
  'voucher_type_2',
  'voucher_type_3',
  'voucher_type_4',
] as const;

export type PayoutMethod = (typeof PAYOUT_METHODS)[number];
export type PayoutMethodKind = 'cash' | 'bank' | 'voucher';
/** The voucher gateway's product codes: the provider client's, so a code it drops or renames fails to compile here. */
export type VoucherProductCode = VoucherSubmission['productCode'];

export interface PayoutMethodDefinition {
  method: PayoutMethod;
  name: string;
  kind: PayoutMethodKind;
  /** `pin` for cash rails (PIN and serial by SMS) and vouchers (PIN for the vendor to pass on); null for bank credits. */
  delivery: 'pin' | null;
  minimumCents: bigint;
  maximumCents: bigint;
  incrementCents: bigint;
  requiresBankAccount: boolean;
  /** Which provider API takes it; vouchers share one voucher gateway keyed by product code. */
  channel: PayoutChannel;
  productCode: VoucherProductCode | null;
}

/**
 * The gateway's own limits per method. Vouchers follow the voucher catalogue dated 2026-09-15
 * (payout contract). Cash rails: R10 to R3 000 in R10 steps, inside the cash-send providers'
 * R10 to R5 000 so that an admitted amount is never refused for its size. RTC EFT: R1.00 to
 * R50 000.00, the provider's per-payment ceiling. Operations tighten these per vendor
 * (payout_vendor_methods); a vendor limit can never widen them.
 */
export const PAYOUT_METHOD_CATALOGUE: Readonly<Record<PayoutMethod, PayoutMethodDefinition>> = {
  bank_a_instant_money: cash('bank_a_instant_money', 'Bank A Instant Money'),
  bank_b_cardless: cash('bank_b_cardless', 'Bank B Cardless Withdrawal'),
  rtc_eft: {
    method: 'rtc_eft',
    name: 'Real-time clearing EFT',
    kind: 'bank',
    delivery: null,
    minimumCents: 100n,
    maximumCents: 5_000_000n,
    incrementCents: 1n,
    requiresBankAccount: true,
    channel: 'rtc_eft',
    productCode: null,
  },
  voucher_type_1: voucher('voucher_type_1', 'Voucher type 1', '311', 100n, 400_000n),
  voucher_type_2: voucher('voucher_type_2', 'Voucher type 2', '1393', 200n, 300_000n),
  voucher_type_3: voucher('voucher_type_3', 'Voucher type 3', '1652', 200n, 200_000n),
  voucher_type_4: voucher('voucher_type_4', 'Voucher type 4', '1651', 200n, 250_000n),
};

export const CASH_RAIL_METHODS: readonly PayoutMethod[] = ['bank_a_instant_money', 'bank_b_cardless'];

export function isPayoutMethod(value: unknown): value is PayoutMethod {
  return typeof value === 'string' && (PAYOUT_METHODS as readonly string[]).includes(value);
}

export function methodDefinition(method: PayoutMethod): PayoutMethodDefinition {
  return PAYOUT_METHOD_CATALOGUE[method];
}

function cash(method: 'bank_a_instant_money' | 'bank_b_cardless', name: string): PayoutMethodDefinition {
  return {
    method,
    name,
    kind: 'cash',
    delivery: 'pin',
    minimumCents: 1_000n,
    maximumCents: 300_000n,
    incrementCents: 1_000n,
    requiresBankAccount: false,
    channel: method,
    productCode: null,
  };
}

function voucher(method: PayoutMethod, name: string, productCode: VoucherProductCode, minimumCents: bigint, maximumCents: bigint): PayoutMethodDefinition {
  return {
    method,
    name,
    kind: 'voucher',
    delivery: 'pin',
    minimumCents,
    maximumCents,
    incrementCents: 1n,
    requiresBankAccount: false,
    channel: 'voucher',
    productCode,
  };
}
