import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { PAYOUT_METHODS, type PayoutMethod } from '../../model/payout-method-catalogue.js';
import { PAYOUT_STATUSES, type PayoutStatus } from '../../model/payout-status.js';
import { CursorPagingFields, StatementDaysQuery } from '../../statement/dto/statement-query.dto.js';

/** What a reference (or its start) may contain: the reference pattern's characters. */
const REFERENCE_TEXT = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/;

/** The payout filters, shared by the list and the export. */
export class PayoutFilterQuery extends StatementDaysQuery {
  @ApiPropertyOptional({ enum: PAYOUT_STATUSES })
  @IsOptional()
  @IsIn(PAYOUT_STATUSES)
  status?: PayoutStatus;

  @ApiPropertyOptional({ enum: PAYOUT_METHODS })
  @IsOptional()
  @IsIn(PAYOUT_METHODS)
  method?: PayoutMethod;

  @ApiPropertyOptional({ example: 'order-10', description: 'Only payouts whose reference starts with this (case-sensitive)' })
  @IsOptional()
  @Matches(REFERENCE_TEXT, { message: 'reference_prefix must be the start of a reference' })
  reference_prefix?: string;

  @ApiPropertyOptional({ example: 'batch-2026-11-24', description: 'Only the items of this batch (its reference)' })
  @IsOptional()
  @Matches(REFERENCE_TEXT, { message: 'batch must be a batch reference' })
  batch?: string;
}

export class PayoutListQueryDto extends IntersectionType(PayoutFilterQuery, CursorPagingFields) {}

/** The batch filters, shared by the list and the export. */
export class BatchFilterQuery extends StatementDaysQuery {
  @ApiPropertyOptional({ example: 'batch-2026-11', description: 'Only batches whose reference starts with this (case-sensitive)' })
  @IsOptional()
  @Matches(REFERENCE_TEXT, { message: 'reference_prefix must be the start of a reference' })
  reference_prefix?: string;
}

export class BatchListQueryDto extends IntersectionType(BatchFilterQuery, CursorPagingFields) {}
