import { ApiProperty } from '@nestjs/swagger';
import { PageOf, type Documents } from '#common';
import type { CountryView, OperatorView, Page, ProductBenefit, ProductPriceView, ProductView, ServiceView } from '#purchase';

export class ServiceSchema implements Documents<ServiceView, ServiceSchema> {
  @ApiProperty({ example: 3 })
  id: number;
  @ApiProperty({ example: 'PIN vouchers' })
  name: string;
}

export class CountrySchema implements Documents<CountryView, CountrySchema> {
  @ApiProperty({ example: 'ZAF', description: 'ISO 3166 alpha-3' })
  iso_code: string;
  @ApiProperty({ example: 'South Africa' })
  name: string;
  @ApiProperty({ type: String, nullable: true, example: 'ZAR', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of the local currency; null when the provider gives none' })
  currency: string | null;
}

export class OperatorRefSchema implements Documents<ProductView['operator'], OperatorRefSchema> {
  @ApiProperty({ example: 101 })
  id: number;
  @ApiProperty({ example: 'Vodacom ZA' })
  name: string;
}

export class OperatorSchema extends OperatorRefSchema implements Documents<OperatorView, OperatorSchema> {
  @ApiProperty({ example: 'ZAF' })
  country_iso_code: string;
}

export class BenefitSchema implements Documents<ProductBenefit, BenefitSchema> {
  @ApiProperty({ enum: ['CREDITS', 'DATA', 'VALIDITY', 'BILL_PAYMENT'], example: 'CREDITS', description: "The provider's benefit type" })
  type: string;
  @ApiProperty({ example: 'ZAR' })
  unit: string;
  @ApiProperty({ example: '10.00', description: 'Decimal string' })
  amount: string;
}

export class DestinationRangeSchema implements Documents<NonNullable<ProductView['destination_range']>, DestinationRangeSchema> {
  @ApiProperty({ example: '5.00' })
  min: string;
  @ApiProperty({ example: '1000.00' })
  max: string;
  @ApiProperty({ example: '1.00', description: 'Valid amounts are min + n × step' })
  step: string;
}

export class ProductPriceSchema implements Documents<ProductPriceView, ProductPriceSchema> {
  @ApiProperty({ example: 1014, description: 'ZAR cents charged to the vendor; ranged products: at the minimum amount' })
  charge_minor: number;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
  @ApiProperty({ example: 1 })
  pricing_version_id: number;
  @ApiProperty({ example: '10.00', description: 'Destination amount this price buys' })
  destination_amount: string;
}

const FIELD_SETS = {
  type: 'array',
  items: { type: 'array', items: { type: 'string' } },
  description: 'Alternative complete field sets; one must be provided in full. Empty: nothing required.',
  example: [['mobile_number'], ['account_number']],
} as const;

export class RequirementsSchema implements Documents<ProductView['requirements'], RequirementsSchema> {
  @ApiProperty(FIELD_SETS)
  credit_party_identifier: string[][];
  @ApiProperty(FIELD_SETS)
  debit_party_identifier: string[][];
  @ApiProperty(FIELD_SETS)
  sender: string[][];
  @ApiProperty(FIELD_SETS)
  beneficiary: string[][];
  @ApiProperty(FIELD_SETS)
  statement_identifier: string[][];
  @ApiProperty(FIELD_SETS)
  additional_identifier: string[][];
}

export class ProductSchema implements Documents<ProductView, ProductSchema> {
  @ApiProperty({ example: 10107 })
  id: number;
  @ApiProperty({ example: 'Vodacom ZA Airtime PIN 12.00 ZAR' })
  name: string;
  @ApiProperty({ example: 'Vodacom airtime PIN worth R12.00, delivered as a PIN and serial' })
  description: string;
  @ApiProperty({ enum: ['fixed', 'ranged'], description: 'fixed: quote without amount; ranged: quote with destination_amount or budget_minor' })
  type: string;
  @ApiProperty({ example: 'FIXED_VALUE_PIN_PURCHASE', description: "The provider's product type" })
  provider_type: string;
  @ApiProperty({ type: ServiceSchema })
  service: ServiceSchema;
  @ApiProperty({ type: OperatorRefSchema })
  operator: OperatorRefSchema;
  @ApiProperty({ example: 'ZAF' })
  country_iso_code: string;
  @ApiProperty({ enum: ['none', 'pin', 'esim'], example: 'pin', description: 'pin and esim: delivery data from GET /transactions/{id}/fulfilment' })
  fulfilment: string;
  @ApiProperty({ example: 'ZAR', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of destination amounts (what the recipient gets; the charge is always ZAR)' })
  destination_currency: string;
  @ApiProperty({ type: String, nullable: true, example: '12.00', description: 'Fixed products only' })
  destination_amount: string | null;
  @ApiProperty({ type: DestinationRangeSchema, nullable: true, description: 'Ranged products only' })
  destination_range: DestinationRangeSchema | null;
  @ApiProperty({ type: ProductPriceSchema, nullable: true, description: 'Null when no published pricing prices it' })
  price: ProductPriceSchema | null;
  @ApiProperty({ type: [BenefitSchema] })
  benefits: BenefitSchema[];
  @ApiProperty({ type: RequirementsSchema })
  requirements: RequirementsSchema;
  @ApiProperty({ type: [String], enum: ['statement', 'account', 'esim-benefits', 'esim-status'], example: ['account'], description: 'Lookups this product supports (POST /lookups/{lookup})' })
  lookups: string[];
}

export class ProductPageSchema extends PageOf(ProductSchema, { page: 1, total: 42, last_page: 3 }) implements Documents<Page<ProductView>, ProductPageSchema> {}
