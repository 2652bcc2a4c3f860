import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { PaginationQuery } from '../../validation/pagination.query.js';

export class ProductListQuery extends PaginationQuery {
  @ApiPropertyOptional({ description: 'Matches product name, description or operator name (case-insensitive)', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  search?: string;

  @ApiPropertyOptional({ description: 'ISO 3166 alpha-3, e.g. ZAF', example: 'ZAF' })
  @IsOptional()
  @Matches(/^[A-Za-z]{3}$/, { message: 'country must be an ISO 3166 alpha-3 code' })
  country?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  operator_id?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  service_id?: number;
}
