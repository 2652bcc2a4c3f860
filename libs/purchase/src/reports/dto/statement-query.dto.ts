import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsIsoDay } from '#common';
import { PaginationQuery } from '../../dto/pagination.dto.js';

/** One statement row per Africa/Johannesburg day, or per calendar month, of completion. */
const STATEMENT_PERIODS = ['day', 'month'] as const;

export class PurchaseStatementQuery extends PaginationQuery {
  @ApiPropertyOptional({ enum: ['day', 'month'], default: 'day', description: 'One row per Africa/Johannesburg day, or per calendar month, of completion' })
  @IsOptional()
  @IsIn(STATEMENT_PERIODS)
  period: (typeof STATEMENT_PERIODS)[number] = 'day';

  @ApiPropertyOptional({ format: 'date', example: '2026-11-01', description: 'First Africa/Johannesburg day included; omitted: unbounded' })
  @IsOptional()
  @IsIsoDay()
  date_from?: string;

  @ApiPropertyOptional({ format: 'date', example: '2026-11-30', description: 'Last Africa/Johannesburg day included; omitted: unbounded' })
  @IsOptional()
  @IsIsoDay()
  date_to?: string;
}
