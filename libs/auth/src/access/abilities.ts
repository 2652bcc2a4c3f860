/** Purchase-gateway abilities (contract: purchase-gateway.md, Authentication). */
export const PURCHASE_ABILITIES = [
  'catalogue:read',
  'lookups:read',
  'quotes:write',
  'transactions:write',
  'transactions:read',
  'fulfilment:read',
  'limits:read',
  'reports:read',
] as const;

/** Payout-gateway scopes (contract: payout-gateway.md, Authentication). */
export const PAYOUT_SCOPES = ['payouts:read', 'payouts:write', 'payouts:delivery'] as const;

export type PurchaseAbility = (typeof PURCHASE_ABILITIES)[number];
export type PayoutScope = (typeof PAYOUT_SCOPES)[number];
/** Abilities and scopes share one namespace, so one token list can hold both. */
export type Ability = PurchaseAbility | PayoutScope;

export const ALL_ABILITIES: readonly Ability[] = [...PURCHASE_ABILITIES, ...PAYOUT_SCOPES];

export function isAbility(value: string): value is Ability {
  return (ALL_ABILITIES as readonly string[]).includes(value);
}
