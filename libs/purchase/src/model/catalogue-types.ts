/** The provider catalogue's vocabulary, as the purchase domain stores and checks it. */
export type PricingKind = 'fixed' | 'ranged';
export type FulfilmentKind = 'none' | 'pin' | 'esim';

export const REQUIREMENT_GROUPS = [
  'credit_party_identifier',
  'debit_party_identifier',
  'sender',
  'beneficiary',
  'statement_identifier',
  'additional_identifier',
] as const;
export type RequirementGroup = (typeof REQUIREMENT_GROUPS)[number];

/** Per group, the alternative complete field sets: `[["mobile_number"], ["account_number"]]`. */
export type ProductRequirements = Record<RequirementGroup, string[][]>;

export interface ProductBenefit {
  type: string;
  unit: string;
  amount: string;
}

/** The recipient fields a quote (and its purchase) is submitted with, per requirement group. */
export type IdentifierGroups = Partial<Record<RequirementGroup, Record<string, string>>>;
