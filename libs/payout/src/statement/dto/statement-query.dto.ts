import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsIsoDay } from '#common';

/** Whole Africa/Johannesburg days, both included; an omitted end is open. */
export class StatementDaysQuery {
  @ApiPropertyOptional({ format: 'date', example: '2026-11-24', description: 'First Africa/Johannesburg day included; omitted: from the first entry' })
  @IsOptional()
  @IsIsoDay()
  date_from?: string;

  @ApiPropertyOptional({ format: 'date', example: '2026-11-24', description: 'Last Africa/Johannesburg day included; omitted: up to now' })
  @IsOptional()
  @IsIsoDay()
  date_to?: string;
}

/** The cursor-paging fields shared by the growing lists: `per_page` and an opaque `cursor`. */
export class CursorPagingFields {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  per_page: number = 50;

  @ApiPropertyOptional({ description: 'The `next_cursor` of the previous page, with the same filters (and order); omitted: the first page' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  cursor?: string;
}

/** Days with cursor paging. */
export class CursorPageQuery extends IntersectionType(StatementDaysQuery, CursorPagingFields) {}

export class StatementPageQueryDto extends CursorPageQuery {
  @ApiPropertyOptional({ enum: ['desc', 'asc'], default: 'desc', description: '`desc` newest first, `asc` oldest first' })
  @IsOptional()
  @IsIn(['desc', 'asc'])
  order: 'desc' | 'asc' = 'desc';
}
