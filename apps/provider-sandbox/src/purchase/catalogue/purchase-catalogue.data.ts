import { DecimalAmount, formatCents, wholesaleCentsFor } from '#money';
import type { ProviderBenefit, ProviderCountry, ProviderOperator, ProviderProduct, ProviderService, RequiredFieldSets, RequirementGroup } from '#providers';
import tables from './purchase-catalogue.json' with { type: 'json' };

/**
 * The purchase provider's catalogue, generated from these tables in a fixed order so every
 * start (and every test run) sees the same ids, prices and requirements.
 */

/** The sandbox's benefit kinds; the client's wire type (#providers) leaves the kind open. */
type Benefit = ProviderBenefit & { type: 'CREDITS' | 'DATA' | 'VALIDITY' | 'BILL_PAYMENT' };

/** A product exactly as the purchase client reads it (#providers), with the sandbox's benefit kinds. */
export interface Product extends Omit<ProviderProduct, 'benefits'> {
  /** For ranged products the benefit scales with the amount; listed at the minimum. */
  benefits: Benefit[];
}

export type ProductLookup = Product['supported_lookups'][number];

export { REQUIREMENT_GROUPS, type RequirementGroup } from '#providers';

export function requiredFieldSets(product: Product, group: RequirementGroup): RequiredFieldSets {
  return product[`required_${group}_fields` as const];
}

export const SERVICES = {
  airtime: { id: 1, name: 'Airtime' },
  data: { id: 2, name: 'Data' },
  pin: { id: 3, name: 'PIN vouchers' },
  esim: { id: 4, name: 'eSIM' },
  billPayment: { id: 5, name: 'Bill payment' },
} as const satisfies Record<string, ProviderService>;

interface CountryPricing extends ProviderCountry {
  /** ZAR the provider charges per destination unit for airtime, data and PINs. */
  zarPerUnit: string;
  airtime: string[];
  data: Array<{ megabytes: number; days: number; amount: string }>;
  range: { min: string; max: string; step: string };
}

/** The tables the products are generated from (purchase-catalogue.json); countries are named by ISO code there. */
interface CatalogueTables {
  countries: CountryPricing[];
  mobileOperators: Array<{ id: number; name: string; country: string; prefixes: string[]; pins: string[] }>;
  billers: Array<{ id: number; name: string }>;
  billZarPerUnit: string;
  billRange: { min: string; max: string; step: string };
  esimOperator: { id: number; name: string };
  esimZarPerUnit: string;
  esimPlans: Array<{ megabytes: number; days: number; amount: string }>;
}

const TABLES: CatalogueTables = tables;
const MOBILE_COUNTRIES = TABLES.countries;
const countryByIso = (isoCode: string) => MOBILE_COUNTRIES.find((country) => country.iso_code === isoCode)!;
const ZAF = countryByIso('ZAF');
const MOBILE_OPERATORS = TABLES.mobileOperators.map((operator) => ({ ...operator, country: countryByIso(operator.country) }));
const { billers: BILLERS, esimOperator: ESIM_OPERATOR, esimPlans: ESIM_PLANS, esimZarPerUnit: ESIM_ZAR_PER_UNIT } = TABLES;
const { billZarPerUnit: BILL_ZAR_PER_UNIT, billRange: BILL_RANGE } = TABLES;

const MOBILE_NUMBER: RequiredFieldSets = [['mobile_number']];
const ACCOUNT_NUMBER: RequiredFieldSets = [['account_number']];

function countryRef(country: ProviderCountry) {
  return { iso_code: country.iso_code, name: country.name };
}

function wholesaleFor(amount: string, zarPerUnit: string): string {
  const centsPerUnit = DecimalAmount.parse(zarPerUnit).timesInteger(100n);
  return formatCents(wholesaleCentsFor(DecimalAmount.parse(amount), centsPerUnit));
}

function gigabytesLabel(megabytes: number): string {
  return megabytes >= 1024 ? `${megabytes / 1024}GB` : `${megabytes}MB`;
}

type ProductDraft = Omit<
  Product,
  | 'wholesale_currency'
  | 'required_debit_party_identifier_fields'
  | 'required_sender_fields'
  | 'required_beneficiary_fields'
  | 'required_statement_identifier_fields'
  | 'required_additional_identifier_fields'
> &
  Partial<Product>;

function product(draft: ProductDraft): Product {
  return {
    ...draft,
    wholesale_currency: 'ZAR',
    required_credit_party_identifier_fields: draft.required_credit_party_identifier_fields,
    required_debit_party_identifier_fields: draft.required_debit_party_identifier_fields ?? [],
    required_sender_fields: draft.required_sender_fields ?? [],
    required_beneficiary_fields: draft.required_beneficiary_fields ?? [],
    required_statement_identifier_fields: draft.required_statement_identifier_fields ?? [],
    required_additional_identifier_fields: draft.required_additional_identifier_fields ?? [],
  };
}

function buildProducts(): Product[] {
  const products: Product[] = [];
  for (const operator of MOBILE_OPERATORS) {
    const country = operator.country;
    const operatorRef = { id: operator.id, name: operator.name, country: countryRef(country) };
    let sequence = 0;
    const nextId = () => operator.id * 100 + ++sequence;
    const fixed = (amount: string) => ({
      destination_currency: country.currency,
      destination_amount: amount,
      destination_range: null,
      wholesale_price: wholesaleFor(amount, country.zarPerUnit),
      wholesale_rate: null,
    });
    /** A fixed amount of the operator's airtime credit, topped up or sold as a PIN: its price and the credit it buys. */
    const fixedCredit = (amount: string) => ({ ...fixed(amount), benefits: [{ type: 'CREDITS' as const, unit: country.currency, amount }] });

    for (const amount of country.airtime) {
      products.push(
        product({
          id: nextId(),
          name: `${operator.name} Airtime ${amount} ${country.currency}`,
          description: `Prepaid airtime top-up of ${amount} ${country.currency}`,
          type: 'FIXED_VALUE_RECHARGE',
          service: SERVICES.airtime,
          operator: operatorRef,
          ...fixedCredit(amount),
          fulfilment: 'NONE',
          supported_lookups: ['account'],
          required_credit_party_identifier_fields: MOBILE_NUMBER,
        }),
      );
    }
    for (const bundle of country.data) {
      products.push(
        product({
          id: nextId(),
          name: `${operator.name} Data ${gigabytesLabel(bundle.megabytes)} ${bundle.days} days`,
          description: `Data bundle, valid ${bundle.days} days`,
          type: 'FIXED_VALUE_RECHARGE',
          service: SERVICES.data,
          operator: operatorRef,
          ...fixed(bundle.amount),
          benefits: [
            { type: 'DATA', unit: 'MB', amount: String(bundle.megabytes) },
            { type: 'VALIDITY', unit: 'DAYS', amount: String(bundle.days) },
          ],
          fulfilment: 'NONE',
          supported_lookups: ['account'],
          required_credit_party_identifier_fields: MOBILE_NUMBER,
        }),
      );
    }
    products.push(
      product({
        id: nextId(),
        name: `${operator.name} Airtime ${country.range.min}-${country.range.max} ${country.currency}`,
        description: `Prepaid airtime of any amount from ${country.range.min} to ${country.range.max} in steps of ${country.range.step}`,
        type: 'RANGED_VALUE_RECHARGE',
        service: SERVICES.airtime,
        operator: operatorRef,
        destination_currency: country.currency,
        destination_amount: null,
        destination_range: { ...country.range },
        wholesale_price: null,
        wholesale_rate: country.zarPerUnit,
        benefits: [{ type: 'CREDITS', unit: country.currency, amount: country.range.min }],
        fulfilment: 'NONE',
        supported_lookups: ['account'],
        required_credit_party_identifier_fields: MOBILE_NUMBER,
      }),
    );
    for (const amount of operator.pins) {
      products.push(
        product({
          id: nextId(),
          name: `${operator.name} Airtime PIN ${amount} ${country.currency}`,
          description: 'Airtime voucher delivered as a PIN and serial number',
          type: 'FIXED_VALUE_PIN_PURCHASE',
          service: SERVICES.pin,
          operator: operatorRef,
          ...fixedCredit(amount),
          fulfilment: 'PIN',
          supported_lookups: [],
          required_credit_party_identifier_fields: MOBILE_NUMBER,
        }),
      );
    }
  }

  const esimOperator = { id: ESIM_OPERATOR.id, name: ESIM_OPERATOR.name, country: countryRef(ZAF) };
  ESIM_PLANS.forEach((plan, index) => {
    products.push(
      product({
        id: ESIM_OPERATOR.id * 100 + index + 1,
        name: `${ESIM_OPERATOR.name} ${gigabytesLabel(plan.megabytes)} ${plan.days} days`,
        description: 'Data eSIM delivered as an activation code (LPA string) and ICCID',
        type: 'FIXED_VALUE_ESIM_PURCHASE',
        service: SERVICES.esim,
        operator: esimOperator,
        destination_currency: 'ZAR',
        destination_amount: plan.amount,
        destination_range: null,
        wholesale_price: wholesaleFor(plan.amount, ESIM_ZAR_PER_UNIT),
        wholesale_rate: null,
        benefits: [
          { type: 'DATA', unit: 'MB', amount: String(plan.megabytes) },
          { type: 'VALIDITY', unit: 'DAYS', amount: String(plan.days) },
        ],
        fulfilment: 'ESIM',
        supported_lookups: ['esim-benefits', 'esim-status'],
        // A new eSIM is bound to the buyer's number; an existing one is topped up by ICCID.
        required_credit_party_identifier_fields: [['mobile_number'], ['account_number']],
      }),
    );
  });

  for (const biller of BILLERS) {
    products.push(
      product({
        id: biller.id * 100 + 1,
        name: `${biller.name} account payment`,
        description: 'Pays any amount towards a municipal account; look up the statement first',
        type: 'RANGED_VALUE_PAYMENT',
        service: SERVICES.billPayment,
        operator: { id: biller.id, name: biller.name, country: countryRef(ZAF) },
        destination_currency: 'ZAR',
        destination_amount: null,
        destination_range: { ...BILL_RANGE },
        wholesale_price: null,
        wholesale_rate: BILL_ZAR_PER_UNIT,
        benefits: [{ type: 'BILL_PAYMENT', unit: 'ZAR', amount: BILL_RANGE.min }],
        fulfilment: 'NONE',
        supported_lookups: ['statement', 'account'],
        // The statement lookup takes the same account number; the payment needs nothing more.
        required_credit_party_identifier_fields: ACCOUNT_NUMBER,
      }),
    );
  }
  return products;
}

function buildOperators(): ProviderOperator[] {
  return [
    ...MOBILE_OPERATORS.map((operator) => ({
      id: operator.id,
      name: operator.name,
      country: countryRef(operator.country),
      mobile_prefixes: [...operator.prefixes],
    })),
    ...BILLERS.map((biller) => ({ id: biller.id, name: biller.name, country: countryRef(ZAF), mobile_prefixes: [] })),
    { id: ESIM_OPERATOR.id, name: ESIM_OPERATOR.name, country: countryRef(ZAF), mobile_prefixes: [] },
  ].sort((a, b) => a.id - b.id);
}

export const COUNTRIES: readonly ProviderCountry[] = MOBILE_COUNTRIES.map(({ iso_code, name, currency }) => ({ iso_code, name, currency }));
export const OPERATORS: readonly ProviderOperator[] = buildOperators();
export const PRODUCTS: readonly Product[] = buildProducts();
