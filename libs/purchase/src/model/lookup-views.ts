import type { AssertDocuments } from '#common';
import type { ProviderAccountLookup, ProviderEsimBenefitsLookup, ProviderEsimStatusLookup, ProviderStatementLookup } from '#providers';

// Lookup results: statement, benefit and status facts only, never PINs or activation codes.

export interface OperatorLookupView {
  id: number;
  name: string;
  country_iso_code: string;
}

export type StatementLookupView = Pick<ProviderStatementLookup, 'product_id' | 'account_number' | 'account_holder' | 'currency' | 'amount_due' | 'statement_date' | 'due_date'>;

export type AccountLookupView = Pick<ProviderAccountLookup, 'product_id' | 'valid' | 'status' | 'account_holder' | 'operator'>;

export type EsimBenefitsLookupView = Pick<ProviderEsimBenefitsLookup, 'product_id' | 'benefits' | 'expires_at'>;

export type EsimStatusLookupView = Pick<ProviderEsimStatusLookup, 'product_id' | 'status' | 'installation_date' | 'activation_date'>;

// Each view names the fields of the provider's answer that PurchaseLookupsService copies, so that nothing
// the provider adds reaches the vendor; their types are the wire type's, which the schema classes
// (the purchase gateway's lookups.schemas.ts) check against the contract. These links make a field
// the provider's wire type gains or loses a compile error here rather than a silently dropped field
// (a field the vendor must not see is then left out on purpose: link the view to an `Omit` of the
// wire type).
type _StatementLinked = AssertDocuments<ProviderStatementLookup, StatementLookupView>;
type _AccountLinked = AssertDocuments<ProviderAccountLookup, AccountLookupView>;
type _EsimBenefitsLinked = AssertDocuments<ProviderEsimBenefitsLookup, EsimBenefitsLookupView>;
type _EsimStatusLinked = AssertDocuments<ProviderEsimStatusLookup, EsimStatusLookupView>;
