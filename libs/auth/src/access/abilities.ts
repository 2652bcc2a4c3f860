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

/**
 * Webhook endpoint management, on both gateways (each gateway manages its own endpoints; the
 * same two names, so one vendor switch turns webhooks off everywhere).
 */
export const WEBHOOK_ABILITIES = ['webhooks:read', 'webhooks:write'] as const;

export type WebhookAbility = (typeof WEBHOOK_ABILITIES)[number];
export type PurchaseAbility = (typeof PURCHASE_ABILITIES)[number];
export type PayoutScope = (typeof PAYOUT_SCOPES)[number];
/** Abilities and scopes share one namespace, so one token list can hold both. */
export type Ability = PurchaseAbility | PayoutScope | WebhookAbility;

export const ALL_ABILITIES: readonly Ability[] = [...PURCHASE_ABILITIES, ...PAYOUT_SCOPES, ...WEBHOOK_ABILITIES];

export function isAbility(value: string): value is Ability {
  return (ALL_ABILITIES as readonly string[]).includes(value);
}
