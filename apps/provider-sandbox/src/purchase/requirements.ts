import { REQUIREMENT_GROUPS, requiredFieldSets, type Product, type RequirementGroup } from './catalogue/purchase-catalogue.data.js';

export type IdentifierGroups = Partial<Record<RequirementGroup, Record<string, string>>>;

/** True when `provided` holds every field of at least one alternative set (or nothing is required). */
export function satisfiesFieldSets(fieldSets: string[][], provided: Record<string, string> | undefined): boolean {
  if (fieldSets.length === 0) return true;
  return fieldSets.some((fields) => fields.every((field) => (provided?.[field] ?? '').length > 0));
}

/** The first group whose requirements the request misses, or null when the request is complete. */
export function firstUnmetRequirement(product: Product, groups: IdentifierGroups): RequirementGroup | null {
  return REQUIREMENT_GROUPS.find((group) => !satisfiesFieldSets(requiredFieldSets(product, group), groups[group])) ?? null;
}
