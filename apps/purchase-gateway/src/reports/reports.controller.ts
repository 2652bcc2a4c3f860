import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireAbilities, type VendorPrincipal } from '#auth';
import { PurchaseSalesSummaryService } from '#purchase';
import { assertDateOrder, DateRangeQuery } from '#purchase';
import { ApiEnvelope, ApiPurchaseErrors, RATE_LIMITED } from '../openapi/purchase-openapi.js';
import { SalesSummarySchema } from './reports.schemas.js';

@ApiTags('reports')
@Controller('reports')
export class ReportsController {
  constructor(private readonly reports: PurchaseSalesSummaryService) {}

  @Get('summary')
  @RequireAbilities('reports:read')
  @ApiOperation({
    operationId: 'getSalesSummary',
    summary: 'Sales summary over whole Africa/Johannesburg days',
    description: 'Sales and reversals by the original verified completion date; pending and review counts by admission date. An omitted date leaves that end open.',
  })
  @ApiEnvelope(200, SalesSummarySchema)
  @ApiPurchaseErrors('VALIDATION_FAILED', RATE_LIMITED)
  summary(@CurrentVendor() vendor: VendorPrincipal, @Query() query: DateRangeQuery) {
    assertDateOrder(query);
    return this.reports.summary(vendor.vendorId, query.date_from, query.date_to);
  }
}
