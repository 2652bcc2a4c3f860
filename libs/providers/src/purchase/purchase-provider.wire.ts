/**
 * The purchase provider's JSON (DVS style), as the catalogue and transaction endpoints send it.
 * Catalogue records are handed on as they are; transactions are mapped to our vocabulary.
 */

export interface ProviderService {
  id: number;
  name: string;
}

export interface ProviderCountry {
  iso_code: string;
  name: string;
  currency: string;
}

export interface ProviderOperator {
  id: number;
  name: string;
  country: { iso_code: string; name: string };
  /** International prefixes without '+', matched against the start of a mobile number. */
  mobile_prefixes: string[];
}

export type ProviderProductType =
  | 'FIXED_VALUE_RECHARGE'
  | 'RANGED_VALUE_RECHARGE'
  | 'FIXED_VALUE_PIN_PURCHASE'
  | 'FIXED_VALUE_ESIM_PURCHASE'
  | 'RANGED_VALUE_PAYMENT';

export interface ProviderBenefit {
  type: string;
  unit: string;
  amount: string;
}

/** Each inner array is one complete alternative set of field names; an empty outer array needs nothing. */
export type RequiredFieldSets = string[][];

export interface ProviderProduct {
  id: number;
  name: string;
  description: string;
  type: ProviderProductType;
  service: ProviderService;
  operator: { id: number; name: string; country: { iso_code: string; name: string } };
  destination_currency: string;
  /** Fixed products only. */
  destination_amount: string | null;
  /** Ranged products only; valid amounts are min + n × step, up to max. */
  destination_range: { min: string; max: string; step: string } | null;
  wholesale_currency: 'ZAR';
  /** Fixed products: what we pay, exact decimal ZAR. */
  wholesale_price: string | null;
  /** Ranged products: ZAR per destination unit; the charge is amount × rate rounded up to a cent. */
  wholesale_rate: string | null;
  benefits: ProviderBenefit[];
  fulfilment: 'NONE' | 'PIN' | 'ESIM';
  supported_lookups: Array<'statement' | 'account' | 'esim-benefits' | 'esim-status'>;
  required_credit_party_identifier_fields: RequiredFieldSets;
  required_debit_party_identifier_fields: RequiredFieldSets;
  required_sender_fields: RequiredFieldSets;
  required_beneficiary_fields: RequiredFieldSets;
  required_statement_identifier_fields: RequiredFieldSets;
  required_additional_identifier_fields: RequiredFieldSets;
}

export interface ProviderStatementLookup {
  product_id: number;
  account_number: string;
  account_holder: string;
  currency: string;
  amount_due: string;
  statement_date: string;
  due_date: string;
}

export interface ProviderAccountLookup {
  product_id: number;
  valid: boolean;
  status: string;
  account_holder: string;
  operator: { id: number; name: string };
}

export interface ProviderEsimBenefitsLookup {
  product_id: number;
  benefits: Array<{ type: string; unit: string; total: string; remaining: string }>;
  expires_at: string;
}

export interface ProviderEsimStatusLookup {
  product_id: number;
  status: string;
  installation_date: string | null;
  activation_date: string | null;
}

export interface ProviderTransactionWire {
  id: number;
  external_id: string;
  creation_date: string;
  completion_date: string | null;
  reversal_date: string | null;
  status: { id: number; message: string; class: { id: number; message: string } };
  product: { id: number };
  destination: { amount: string; unit: string };
  prices: { wholesale: { amount: string; unit: string } };
  pin: { code: string; serial: string } | null;
  esim: { iccid: string; smdp_address: string; activation_code: string; qr_code_payload: string } | null;
}
