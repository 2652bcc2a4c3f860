import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { IsStringMap, STRING_MAP_SCHEMA } from '../../dto/string-map.validator.js';

export const REQUIREMENT_GROUP_SCHEMA = { ...STRING_MAP_SCHEMA, description: 'Required per product: see the product’s `requirements`' };

export class CreateQuoteBody {
  @ApiProperty({ example: 10107 })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  product_id: number;

  @ApiPropertyOptional({ example: '25.00', description: 'Ranged products: exact destination amount (decimal string); excludes budget_minor' })
  @IsOptional()
  @IsString()
  @Matches(/^(0|[1-9]\d{0,14})(\.\d{1,8})?$/, { message: 'destination_amount must be a plain decimal string such as "25.00"' })
  destination_amount?: string;

  @ApiPropertyOptional({ minimum: 1, example: 5000, description: 'Ranged products: ZAR cents to spend at most; excludes destination_amount' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  budget_minor?: number;

  @ApiPropertyOptional({ ...REQUIREMENT_GROUP_SCHEMA, example: { mobile_number: '27821234567' } })
  @IsOptional()
  @IsStringMap()
  credit_party_identifier?: Record<string, string>;

  @ApiPropertyOptional(REQUIREMENT_GROUP_SCHEMA)
  @IsOptional()
  @IsStringMap()
  debit_party_identifier?: Record<string, string>;

  @ApiPropertyOptional(REQUIREMENT_GROUP_SCHEMA)
  @IsOptional()
  @IsStringMap()
  sender?: Record<string, string>;

  @ApiPropertyOptional(REQUIREMENT_GROUP_SCHEMA)
  @IsOptional()
  @IsStringMap()
  beneficiary?: Record<string, string>;

  @ApiPropertyOptional(REQUIREMENT_GROUP_SCHEMA)
  @IsOptional()
  @IsStringMap()
  statement_identifier?: Record<string, string>;

  @ApiPropertyOptional(REQUIREMENT_GROUP_SCHEMA)
  @IsOptional()
  @IsStringMap()
  additional_identifier?: Record<string, string>;
}
