import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { REFERENCE_PATTERN, TRANSACTION_STATUSES } from '#purchase';
import { IsIsoDay, ValidationFailedError } from '#common';
import { OptionalIdQuery } from '../../validation/optional-id.js';
import { PaginationQuery } from '../../validation/pagination.query.js';

const REFERENCE_MESSAGE = 'reference must be 1 to 128 letters, digits or the characters _ . : -';

export class CreateTransactionBody {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all')
  quote_id: string;

  @ApiProperty({ maxLength: 128, example: 'order-2026-0001', description: 'Your reference, unique per vendor; letters, digits, _ . : -' })
  @IsString()
  @MaxLength(128)
  @Matches(REFERENCE_PATTERN, { message: REFERENCE_MESSAGE })
  reference: string;

  /**
   * The `Idempotency-Key` header, put here by IdempotencyKeyIntoBody before validation so that
   * the header and the body fields are checked together and every problem is answered at once.
   * Not part of the JSON body (no @ApiProperty: the description declares it as a header).
   */
  @IsDefined({ message: 'Idempotency-Key header is required: 1 to 128 letters, digits or the characters _ . : -' })
  @IsString({ message: 'Idempotency-Key header must be 1 to 128 letters, digits or the characters _ . : -' })
  @Matches(REFERENCE_PATTERN, { message: 'Idempotency-Key header must be 1 to 128 letters, digits or the characters _ . : -' })
  'Idempotency-Key'?: string;
}

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
