import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { IsIsoDay, ValidationFailedError } from '#common';
import { REFERENCE_PATTERN } from '../../model/transaction-reference.js';
import { TRANSACTION_STATUSES } from '../../model/transaction-status.js';
import { REFERENCE_MESSAGE } from '../../admission/dto/purchase-request.dto.js';
import { OptionalIdQuery } from '../../dto/optional-id.js';
import { PaginationQuery } from '../../dto/pagination.dto.js';

export class TransactionListQuery extends PaginationQuery {
  @ApiPropertyOptional({ enum: TRANSACTION_STATUSES })
  @IsOptional()
  @IsIn(TRANSACTION_STATUSES)
  status?: (typeof TRANSACTION_STATUSES)[number];

  @ApiPropertyOptional({ description: 'Exact match' })
  @IsOptional()
  @IsString()
  @Matches(REFERENCE_PATTERN, { message: REFERENCE_MESSAGE })
  reference?: string;

  @OptionalIdQuery()
  product_id?: number;

  @ApiPropertyOptional({ format: 'date', description: 'Admitted on or after this Africa/Johannesburg day (whole day)' })
  @IsOptional()
  @IsIsoDay()
  date_from?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Admitted on or before this Africa/Johannesburg day (whole day)' })
  @IsOptional()
  @IsIsoDay()
  date_to?: string;
}

export class DateRangeQuery {
  @ApiPropertyOptional({ format: 'date', description: 'First Africa/Johannesburg day included; omitted: unbounded' })
  @IsOptional()
  @IsIsoDay()
  date_from?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Last Africa/Johannesburg day included; omitted: unbounded' })
  @IsOptional()
  @IsIsoDay()
  date_to?: string;
}

/** Both ends given: the period may not end before it starts (YYYY-MM-DD compares as text). */
export function assertDateOrder(query: { date_from?: string; date_to?: string }): void {
  if (query.date_from && query.date_to && query.date_from > query.date_to) {
    throw new ValidationFailedError({ date_to: ['date_to must not be before date_from'] });
  }
}
