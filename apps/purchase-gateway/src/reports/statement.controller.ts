import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { CurrentVendor, RequireAbilities, type VendorPrincipal } from '#auth';
import { IsIsoDay, SkipEnvelope, streamCsv } from '#common';
import { PURCHASE_CSV_COLUMNS, PurchaseStatementService, type PurchaseStatementPage, type StatementPeriod } from '#purchase';
import { assertDateOrder, DateRangeQuery, PaginationQuery } from '#purchase';
import { ApiEnvelope, ApiPurchaseErrors, RATE_LIMITED } from '../openapi/purchase-openapi.js';
import { PageOf } from '../openapi/page-schema.js';

export class PurchaseStatementQuery extends PaginationQuery {
  @ApiPropertyOptional({ enum: ['day', 'month'], default: 'day', description: 'One row per Africa/Johannesburg day, or per calendar month, of completion' })
  @IsOptional()
  @IsIn(['day', 'month'])
  period: StatementPeriod = 'day';

  @ApiPropertyOptional({ format: 'date', example: '2026-11-01', description: 'First Africa/Johannesburg day included; omitted: unbounded' })
  @IsOptional()
  @IsIsoDay()
  date_from?: string;

  @ApiPropertyOptional({ format: 'date', example: '2026-11-30', description: 'Last Africa/Johannesburg day included; omitted: unbounded' })
  @IsOptional()
  @IsIsoDay()
  date_to?: string;
}

export class PurchaseStatementRowSchema {
  @ApiProperty({ example: '2026-11-24', description: 'YYYY-MM-DD (period=day) or YYYY-MM (period=month), Africa/Johannesburg, of the verified completion' })
  period: string;
  @ApiProperty({ example: 1201 })
  product_id: number;
  @ApiProperty({ example: 'Airtime R10-R1000' })
  product_name: string;
  @ApiProperty({ example: 12 })
  operator_id: number;
  @ApiProperty({ example: 'Vodacom South Africa' })
  operator_name: string;
  @ApiProperty({ example: 42, description: 'Sales verified as completed in the period, including those reversed since' })
  completed_count: number;
  @ApiProperty({ example: 126000, description: 'What the vendor was charged for them, ZAR cents' })
  completed_gross_minor: number;
  @ApiProperty({ example: 1, description: 'Of those sales, the ones reversed since (by original completion date)' })
  reversed_count: number;
  @ApiProperty({ example: 3000 })
  reversed_gross_minor: number;
  @ApiProperty({ example: 123000, description: 'completed_gross_minor − reversed_gross_minor' })
  net_minor: number;
}

export class PurchaseStatementPageSchema extends PageOf(PurchaseStatementRowSchema, { page: 1, total: 1, last_page: 1 }) {}

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
  @ApiOkResponse({ description: 'The CSV file, streamed (its header line as the example)', content: { 'text/csv': { schema: { type: 'string' }, example: `${PURCHASE_CSV_COLUMNS.join(',')}\r\n` } } })
  @ApiOperation({
    operationId: 'exportPurchases',
    summary: 'Purchases as CSV',
    description:
      'Purchases admitted in the Africa/Johannesburg days, oldest first, streamed as text/csv (RFC 4180, CRLF, a header line). `charge` is an exact decimal in ZAR, ' +
      `times ISO 8601 in UTC; a text cell starting with = + - @, tab or CR is prefixed with an apostrophe. Columns: ${PURCHASE_CSV_COLUMNS.join(', ')}. Never PINs.`,
  })
  @ApiPurchaseErrors('VALIDATION_FAILED', RATE_LIMITED)
  async purchasesCsv(@CurrentVendor() vendor: VendorPrincipal, @Query() query: DateRangeQuery, @Res() response: Response): Promise<void> {
    assertDateOrder(query);
    const name = `purchases-${query.date_from ?? 'start'}-${query.date_to ?? 'now'}.csv`;
    await streamCsv(response, name, PURCHASE_CSV_COLUMNS, this.statements.csvRows(vendor.vendorId, { dateFrom: query.date_from, dateTo: query.date_to }));
  }
}
