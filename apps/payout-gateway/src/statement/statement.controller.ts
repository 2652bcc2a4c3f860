import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireScopes, type VendorPrincipal } from '#auth';
import { PayoutStatementService, StatementDaysQuery, StatementPageQueryDto, type CursorPage, type StatementLineView, type StatementSummaryView } from '#payout';
import { ApiEnvelope, ApiPayoutErrors } from '../openapi/payout-openapi.js';
import { StatementPageSchema, StatementSummarySchema } from './statement.schemas.js';

/** A funding, then a payout reserved and settled with its fee, newest first. */
const PAGE_EXAMPLE = {
  items: [
    { id: '48215-fee', category: 'fee', kind: 'settle', amount: '5.00', available_change: '0.00', reserved_change: '-5.00' },
    { id: '48215', category: 'payout_settled', kind: 'settle', amount: '150.00', available_change: '0.00', reserved_change: '-150.00' },
    { id: '48214', category: 'payout_reserved', kind: 'reserve', amount: '155.00', available_change: '-155.00', reserved_change: '155.00' },
    { id: '48213', category: 'funding', kind: 'fund', amount: '10000.00', available_change: '10000.00', reserved_change: '0.00' },
  ].map((line, index) => ({
    ...line,
    created_at: '2026-11-24T08:00:01.120Z',
    available_after: ['9845.00', '9845.00', '9845.00', '10000.00'][index],
    reserved_after: ['0.00', '5.00', '155.00', '0.00'][index],
    currency: 'ZAR',
    payout_id: line.kind === 'fund' ? null : '8f14e45f-ceea-4e3a-9d1b-2c3d4e5f6a7b',
    payout_reference: line.kind === 'fund' ? null : 'order-1042',
    batch_reference: null,
  })),
  per_page: 50,
  next_cursor: null,
};

@ApiTags('statement')
@Controller('statement')
export class StatementController {
  constructor(private readonly statement: PayoutStatementService) {}

  @Get()
  @RequireScopes('payouts:read')
  @ApiOperation({
    summary: 'Account statement: one line per money movement',
    description:
      'The ledger of the prefunded account for whole Africa/Johannesburg days, newest (`order=desc`, default) or oldest first, cursor-paged: ' +
      'pass `next_cursor` back as `cursor` with the same filters until it is null. A page never skips or repeats a line while new movements arrive. ' +
      'Each line has its category, the payout and batch it belongs to, its signed changes and the balances right after it; a settled payout has a ' +
      'separate `fee` line.',
  })
  @ApiEnvelope(200, StatementPageSchema, { data: PAGE_EXAMPLE })
  @ApiPayoutErrors('VALIDATION_FAILED')
  getStatement(@CurrentVendor() vendor: VendorPrincipal, @Query() query: StatementPageQueryDto): Promise<CursorPage<StatementLineView>> {
    return this.statement.page(vendor.vendorId, { dateFrom: query.date_from, dateTo: query.date_to, order: query.order, perPage: query.per_page, cursor: query.cursor });
  }

  @Get('summary')
  @RequireScopes('payouts:read')
  @ApiOperation({
    summary: 'Statement summary: opening, closing and totals per category',
    description: '`closing` is always `opening` plus the changes of every category; over a range that ends today it equals GET /account (until the next movement).',
  })
  @ApiEnvelope(200, StatementSummarySchema)
  @ApiPayoutErrors('VALIDATION_FAILED')
  getStatementSummary(@CurrentVendor() vendor: VendorPrincipal, @Query() query: StatementDaysQuery): Promise<StatementSummaryView> {
    return this.statement.summary(vendor.vendorId, { dateFrom: query.date_from, dateTo: query.date_to });
  }
}
