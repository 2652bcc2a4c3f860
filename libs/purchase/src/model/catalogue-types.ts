import type { RequirementGroup } from '#providers';

/** The provider catalogue's vocabulary, as the purchase domain stores and checks it. */
export type PricingKind = 'fixed' | 'ranged';
export type FulfilmentKind = 'none' | 'pin' | 'esim';

export { REQUIREMENT_GROUPS, type RequirementGroup } from '#providers';

/** Per group, the alternative complete field sets: `[["mobile_number"], ["account_number"]]`. */
export type ProductRequirements = Record<RequirementGroup, string[][]>;

export interface ProductBenefit {
  type: string;
  unit: string;
  amount: string;
}

/** The recipient fields a quote (and its purchase) is submitted with, per requirement group. */
export type IdentifierGroups = Partial<Record<RequirementGroup, Record<string, string>>>;
