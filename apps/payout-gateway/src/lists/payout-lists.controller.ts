import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { CurrentVendor, RequireScopes, type VendorPrincipal } from '#auth';
import { BATCH_STATUSES, PAYOUT_METHODS, PAYOUT_STATUSES, PayoutListsService, type BatchSummaryView, type CursorPage, type PayoutMethod, type PayoutStatus, type PayoutView } from '#payout';
import { ApiEnvelope, ApiPayoutErrors, PayoutSchema } from '../openapi/payout-schemas.js';
import { CursorPagingFields, StatementDaysQuery } from '../statement/statement.dto.js';

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

export class PayoutPageSchema {
  @ApiProperty({ type: [PayoutSchema], description: 'Without delivery codes (`delivery` is null): read them per payout' })
  items: PayoutSchema[];
  @ApiProperty({ example: 50 })
  per_page: number;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Pass as `cursor` for the next page; null on the last page' })
  next_cursor: string | null;
}

export class BatchSummarySchema {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty({ example: 'batch-2026-11-24' })
  reference: string;
  @ApiProperty({ enum: BATCH_STATUSES })
  status: string;
  @ApiProperty({ example: '15000.00' })
  total_amount: string;
  @ApiProperty({ example: '500.00' })
  total_fee: string;
  @ApiProperty({ example: 100 })
  item_count: number;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ enum: ['ZAR'] })
  currency: string;
}

export class BatchPageSchema {
  @ApiProperty({ type: [BatchSummarySchema], description: 'Batches without their items: GET /batches/{reference} has them' })
  items: BatchSummarySchema[];
  @ApiProperty({ example: 50 })
  per_page: number;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Pass as `cursor` for the next page; null on the last page' })
  next_cursor: string | null;
}

/** The payout list (an addition to the contract), newest first, cursor-paged. */
@ApiTags('payouts')
@Controller('payouts')
export class PayoutListController {
  constructor(private readonly lists: PayoutListsService) {}

  @Get()
  @RequireScopes('payouts:read')
  @ApiOperation({
    summary: 'Payouts, newest first',
    description:
      'Filters: `status`, `method`, `date_from`/`date_to` (whole Africa/Johannesburg days of creation), `reference_prefix`, `batch` (a batch reference). ' +
      'Cursor-paged: pass `next_cursor` back as `cursor` with the same filters.',
  })
  @ApiEnvelope(200, PayoutPageSchema)
  @ApiPayoutErrors('VALIDATION_FAILED')
  listPayouts(@CurrentVendor() vendor: VendorPrincipal, @Query() query: PayoutListQueryDto): Promise<CursorPage<PayoutView>> {
    return this.lists.payouts(vendor.vendorId, {
      dateFrom: query.date_from,
      dateTo: query.date_to,
      status: query.status,
      method: query.method,
      referencePrefix: query.reference_prefix,
      batch: query.batch,
      perPage: query.per_page,
      cursor: query.cursor,
    });
  }

}

/** The batch list (an addition to the contract), newest first, cursor-paged. */
@ApiTags('batches')
@Controller('batches')
export class BatchListController {
  constructor(private readonly lists: PayoutListsService) {}

  @Get()
  @RequireScopes('payouts:read')
  @ApiOperation({ summary: 'Batches, newest first', description: 'Filters: `date_from`/`date_to` (Africa/Johannesburg days of creation), `reference_prefix`. Cursor-paged.' })
  @ApiEnvelope(200, BatchPageSchema)
  @ApiPayoutErrors('VALIDATION_FAILED')
  listBatches(@CurrentVendor() vendor: VendorPrincipal, @Query() query: BatchListQueryDto): Promise<CursorPage<BatchSummaryView>> {
    return this.lists.batches(vendor.vendorId, { dateFrom: query.date_from, dateTo: query.date_to, referencePrefix: query.reference_prefix, perPage: query.per_page, cursor: query.cursor });
  }
}
