import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireScopes, type VendorPrincipal } from '#auth';
import { BatchListQueryDto, PayoutListQueryDto, PayoutListsService, type BatchSummaryView, type CursorPage, type PayoutView } from '#payout';
import { ApiEnvelope, ApiPayoutErrors } from '../openapi/payout-openapi.js';
import { BatchPageSchema, PayoutPageSchema } from './lists.schemas.js';

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
