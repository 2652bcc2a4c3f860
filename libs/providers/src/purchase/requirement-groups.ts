import type { ProviderProduct } from './purchase-provider.wire.js';

/**
 * The provider's groups of identifying fields a product may require (`required_<group>_fields`
 * on its products), in the order they are checked. The purchase domain and the sandbox share them.
 */
export const REQUIREMENT_GROUPS = [
  'credit_party_identifier',
  'debit_party_identifier',
  'sender',
  'beneficiary',
  'statement_identifier',
  'additional_identifier',
] as const;
export type RequirementGroup = (typeof REQUIREMENT_GROUPS)[number];

// Every group names a field of the wire's products, and every such field has its group.
type ListedFields = `required_${RequirementGroup}_fields`;
type WireFields = Extract<keyof ProviderProduct, `required_${string}_fields`>;
const groupsMatchTheWire: [ListedFields, WireFields] extends [WireFields, ListedFields] ? true : never = true;
void groupsMatchTheWire;
