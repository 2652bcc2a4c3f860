import { REQUIREMENT_GROUPS, type ProductRequirements } from './catalogue-types.js';
import type { IdentifierGroups } from './catalogue-types.js';

/**
 * Checks the recipient groups of a quote request against the product's requirements. Each group
 * lists alternative complete field sets; one of them must be fully present (non-empty values).
 * Returns field errors keyed like `credit_party_identifier.mobile_number`, empty when satisfied.
 */
export function unmetRequirements(requirements: ProductRequirements, provided: IdentifierGroups): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const group of REQUIREMENT_GROUPS) {
    const alternatives = (requirements[group] ?? []).filter((fields) => fields.length > 0);
    if (alternatives.length === 0) continue;
    const values = provided[group] ?? {};
    const complete = alternatives.some((fields) => fields.every((field) => (values[field] ?? '').trim().length > 0));
    if (complete) continue;
    if (alternatives.length === 1) {
      for (const field of alternatives[0]) {
        if ((values[field] ?? '').trim().length === 0) errors[`${group}.${field}`] = ['is required by this product'];
      }
    } else {
      const options = alternatives.map((fields) => fields.join(' + ')).join(' | ');
      errors[group] = [`must hold one of these field sets: ${options}`];
    }
  }
  return errors;
}
