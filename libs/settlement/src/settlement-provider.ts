import { CASH_SEND_RAILS, type PayoutChannel } from '#providers';

/**
 * Every provider that publishes a daily settlement report: the purchase provider (`dvs`) and
 * each payout provider API (its channel name), each with its own reference namespace.
 */
export type SettlementProvider = 'dvs' | PayoutChannel;

export const SETTLEMENT_PROVIDERS: readonly SettlementProvider[] = ['dvs', ...CASH_SEND_RAILS, 'rtc_eft', 'voucher'];

export function isSettlementProvider(value: string): value is SettlementProvider {
  return (SETTLEMENT_PROVIDERS as readonly string[]).includes(value);
}

export function domainOf(provider: SettlementProvider): 'purchase' | 'payout' {
  return provider === 'dvs' ? 'purchase' : 'payout';
}

/** What matching one line came to. */
export type LineResult = 'matched' | 'applied' | 'exception';
