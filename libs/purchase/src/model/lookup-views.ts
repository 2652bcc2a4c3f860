import type { AssertDocuments } from '#common';
import type { ProviderAccountLookup, ProviderEsimBenefitsLookup, ProviderEsimStatusLookup, ProviderStatementLookup } from '#providers';

// Lookup results: statement, benefit and status facts only, never PINs or activation codes.

export interface OperatorLookupView {
  id: number;
  name: string;
  country_iso_code: string;
}

export interface StatementLookupView {
  product_id: number;
  account_number: string;
  account_holder: string;
  currency: string;
  amount_due: string;
  statement_date: string;
  due_date: string;
}

export interface AccountLookupView {
  product_id: number;
  valid: boolean;
  status: string;
  account_holder: string;
  operator: { id: number; name: string };
}

export interface EsimBenefitsLookupView {
  product_id: number;
  benefits: { type: string; unit: string; total: string; remaining: string }[];
  expires_at: string;
}

export interface EsimStatusLookupView {
  product_id: number;
  status: string;
  installation_date: string | null;
  activation_date: string | null;
}

// Each view is copied field by field from the provider's answer (PurchaseLookupsService), so that nothing
// the provider adds reaches the vendor; these links make a field the provider's wire type gains,
// loses or retypes a compile error here rather than a silently dropped or mistyped field (a field
// the vendor must not see is then left out on purpose: link the view to an `Omit` of the wire type).
type _StatementLinked = AssertDocuments<ProviderStatementLookup, StatementLookupView>;
type _AccountLinked = AssertDocuments<ProviderAccountLookup, AccountLookupView>;
type _EsimBenefitsLinked = AssertDocuments<ProviderEsimBenefitsLookup, EsimBenefitsLookupView>;
type _EsimStatusLinked = AssertDocuments<ProviderEsimStatusLookup, EsimStatusLookupView>;
