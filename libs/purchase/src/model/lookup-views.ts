/** Lookup results: statement, benefit and status facts only, never PINs or activation codes. */

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
