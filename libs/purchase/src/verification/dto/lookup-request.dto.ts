import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { IsCleanText } from '#common';
import { IsStringMap, STRING_MAP_SCHEMA } from '../../dto/string-map.validator.js';

const MAX_PRODUCT_ID = 2_147_483_647;

export class MobileNumberLookupBody {
  @ApiProperty({ example: '27821234567', description: 'International format, digits only (a leading + is accepted)' })
  @IsString()
  @Matches(/^\+?\d{8,15}$/, { message: 'mobile_number must be 8 to 15 digits, optionally after a +' })
  mobile_number: string;

  @ApiPropertyOptional({ description: 'Optional: restricts the answer to this enabled product’s operator' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PRODUCT_ID)
  product_id?: number;

  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  per_page?: number;
}

export class StatementLookupBody {
  @ApiProperty()
  @IsInt()
  @Min(1)
  @Max(MAX_PRODUCT_ID)
  product_id: number;

  @ApiProperty({ example: '4000123456' })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  @IsCleanText()
  account_number: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(64)
  @IsCleanText()
  account_qualifier?: string;
}

export class IdentifierLookupBody {
  @ApiProperty()
  @IsInt()
  @Min(1)
  @Max(MAX_PRODUCT_ID)
  product_id: number;

  @ApiProperty({ ...STRING_MAP_SCHEMA, example: { mobile_number: '27821234567' }, description: 'Account or mobile number, as the product requires' })
  @IsStringMap()
  credit_party_identifier: Record<string, string>;
}
