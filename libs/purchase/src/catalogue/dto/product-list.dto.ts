import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsCleanText } from '#common';
import { OptionalIdQuery } from '../../dto/optional-id.js';
import { PaginationQuery } from '../../dto/pagination.dto.js';

export class ProductListQuery extends PaginationQuery {
  @ApiPropertyOptional({ description: 'Matches product name, description or operator name (case-insensitive)', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @IsCleanText()
  search?: string;

  @ApiPropertyOptional({ description: 'ISO 3166 alpha-3, e.g. ZAF', example: 'ZAF' })
  @IsOptional()
  @Matches(/^[A-Za-z]{3}$/, { message: 'country must be an ISO 3166 alpha-3 code' })
  country?: string;

  @OptionalIdQuery()
  operator_id?: number;

  @OptionalIdQuery()
  service_id?: number;
}
