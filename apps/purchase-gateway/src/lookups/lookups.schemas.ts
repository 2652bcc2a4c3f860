import { ApiProperty } from '@nestjs/swagger';
import { PageOf, type Documents } from '#common';
import type { AccountLookupView, EsimBenefitsLookupView, EsimStatusLookupView, OperatorLookupView, Page, StatementLookupView } from '#purchase';
import { OperatorRefSchema, OperatorSchema } from '../catalogue/catalogue.schemas.js';

export class OperatorPageSchema extends PageOf(OperatorSchema) implements Documents<Page<OperatorLookupView>, OperatorPageSchema> {}

export class StatementLookupSchema implements Documents<StatementLookupView, StatementLookupSchema> {
  @ApiProperty({ example: 11001 })
  product_id: number;
  @ApiProperty({ example: '1234567800' })
  account_number: string;
  @ApiProperty({ example: 'T***** M******', description: 'Masked' })
  account_holder: string;
  @ApiProperty({ example: 'ZAR', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of the statement amounts' })
  currency: string;
  @ApiProperty({ example: '1234.56' })
  amount_due: string;
  @ApiProperty({ format: 'date' })
  statement_date: string;
  @ApiProperty({ format: 'date' })
  due_date: string;
}

export class AccountLookupSchema implements Documents<AccountLookupView, AccountLookupSchema> {
  @ApiProperty({ example: 11001 })
  product_id: number;
  @ApiProperty()
  valid: boolean;
  @ApiProperty({ example: 'ACTIVE', description: "The provider's account status, passed through (the sandbox answers ACTIVE)" })
  status: string;
  @ApiProperty({ example: 'T***** M******', description: 'Masked' })
  account_holder: string;
  @ApiProperty({ type: OperatorRefSchema })
  operator: OperatorRefSchema;
}

export class RemainingBenefitSchema implements Documents<EsimBenefitsLookupView['benefits'][number], RemainingBenefitSchema> {
  @ApiProperty({ enum: ['CREDITS', 'DATA', 'VALIDITY', 'BILL_PAYMENT'], example: 'DATA' })
  type: string;
  @ApiProperty({ example: 'MB' })
  unit: string;
  @ApiProperty({ example: '1024' })
  total: string;
  @ApiProperty({ example: '512' })
  remaining: string;
}

export class EsimBenefitsLookupSchema implements Documents<EsimBenefitsLookupView, EsimBenefitsLookupSchema> {
  @ApiProperty({ example: 12001 })
  product_id: number;
  @ApiProperty({ type: [RemainingBenefitSchema] })
  benefits: RemainingBenefitSchema[];
  @ApiProperty({ format: 'date-time' })
  expires_at: string;
}

export class EsimStatusLookupSchema implements Documents<EsimStatusLookupView, EsimStatusLookupSchema> {
  @ApiProperty({ example: 12001 })
  product_id: number;
  @ApiProperty({ enum: ['INSTALLED', 'NOT_INSTALLED'], example: 'INSTALLED' })
  status: string;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  installation_date: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  activation_date: string | null;
}
