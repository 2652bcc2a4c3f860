import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireAbilities, type VendorPrincipal } from '#auth';
import { SkipEnvelope, streamCsv } from '#common';
import { assertDateOrder, DateRangeQuery, PURCHASE_CSV_HEADER, PurchaseStatementQuery, PurchaseStatementService, type PurchaseStatementPage } from '#purchase';
import { ApiEnvelope, ApiPurchaseErrors, RATE_LIMITED } from '../openapi/purchase-openapi.js';
import { PurchaseStatementPageSchema } from './reports.schemas.js';

@ApiTags('reports')
@Controller('reports')
export class PurchaseStatementController {
  constructor(private readonly statements: PurchaseStatementService) {}

  @Get('statement')
  @RequireAbilities('reports:read')
  @ApiOperation({
    operationId: 'getPurchaseStatement',
    summary: 'Charged, reversed and net per day or month, product and operator',
    description:
      'The figures of GET /reports/summary split by Africa/Johannesburg day (or month) of the verified completion, product and operator, oldest first: ' +
      'over the same days the rows add up to the summary’s completed, reversed and net figures.',
  })
  @ApiEnvelope(200, PurchaseStatementPageSchema)
  @ApiPurchaseErrors('VALIDATION_FAILED', RATE_LIMITED)
  statement(@CurrentVendor() vendor: VendorPrincipal, @Query() query: PurchaseStatementQuery): Promise<PurchaseStatementPage> {
    assertDateOrder(query);
    return this.statements.page(vendor.vendorId, { period: query.period, dateFrom: query.date_from, dateTo: query.date_to, page: query.page, perPage: query.per_page });
  }
}

@ApiTags('reports')
@Controller('exports')
export class PurchaseExportsController {
  constructor(private readonly statements: PurchaseStatementService) {}

  @Get('purchases')
  @SkipEnvelope()
  @RequireAbilities('transactions:read')
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The CSV file, streamed (its header line as the example)', content: { 'text/csv': { schema: { type: 'string' }, example: `${PURCHASE_CSV_HEADER.join(',')}\r\n` } } })
  @ApiOperation({
    operationId: 'exportPurchases',
    summary: 'Purchases as CSV',
    description:
      'Purchases admitted in the Africa/Johannesburg days, oldest first, streamed as text/csv (RFC 4180, CRLF, a header line). `charge` is an exact decimal in ZAR, ' +
      `times ISO 8601 in UTC; a text cell starting with = + - @, tab or CR is prefixed with an apostrophe. Columns: ${PURCHASE_CSV_HEADER.join(', ')}. Never PINs.`,
  })
  @ApiPurchaseErrors('VALIDATION_FAILED', RATE_LIMITED)
  async purchasesCsv(@CurrentVendor() vendor: VendorPrincipal, @Query() query: DateRangeQuery, @Res() response: Response): Promise<void> {
    assertDateOrder(query);
    const name = `purchases-${query.date_from ?? 'start'}-${query.date_to ?? 'now'}.csv`;
    await streamCsv(response, name, PURCHASE_CSV_HEADER, this.statements.csvRows(vendor.vendorId, { dateFrom: query.date_from, dateTo: query.date_to }));
  }
}
