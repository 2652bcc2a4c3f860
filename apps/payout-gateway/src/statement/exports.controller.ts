import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireScopes, type VendorPrincipal } from '#auth';
import { SkipEnvelope, streamCsv } from '#common';
import { BATCH_CSV_HEADER, BatchFilterQuery, instantRange, PAYOUT_CSV_HEADER, PayoutFilterQuery, PayoutListsService, PayoutStatementService, STATEMENT_CSV_HEADER, StatementDaysQuery, type StatementDays } from '#payout';
import { ApiPayoutErrors } from '../openapi/payout-openapi.js';

const CSV_RULES =
  'Streamed as text/csv (RFC 4180, CRLF, a header line), oldest first. Amounts are exact decimals, times ISO 8601 in UTC; a text cell starting with ' +
  '= + - @, tab or CR is prefixed with an apostrophe. Columns: ';

const fileName = (what: string, days: StatementDays) => `${what}-${days.dateFrom ?? 'start'}-${days.dateTo ?? 'now'}.csv`;

/** CSV downloads of the statement, payouts and batches (an addition to the contract). */
@ApiTags('statement')
@Controller('exports')
export class ExportsController {
  constructor(
    private readonly statement: PayoutStatementService,
    private readonly lists: PayoutListsService,
  ) {}

  @Get('statement')
  @SkipEnvelope()
  @RequireScopes('payouts:read')
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The CSV file, streamed (its header line as the example)', content: { 'text/csv': { schema: { type: 'string' }, example: `${STATEMENT_CSV_HEADER.join(',')}\r\n` } } })
  @ApiOperation({ summary: 'The account statement as CSV', description: `${CSV_RULES}${STATEMENT_CSV_HEADER.join(', ')}. The last line is the last movement when the export started.` })
  @ApiPayoutErrors('VALIDATION_FAILED')
  async exportStatement(@CurrentVendor() vendor: VendorPrincipal, @Query() query: StatementDaysQuery, @Res() response: Response): Promise<void> {
    const days = { dateFrom: query.date_from, dateTo: query.date_to };
    instantRange(days); // a reversed range is refused in the envelope, before the first byte
    await streamCsv(response, fileName('statement', days), STATEMENT_CSV_HEADER, this.statement.csvRows(vendor.vendorId, days));
  }

  @Get('payouts')
  @SkipEnvelope()
  @RequireScopes('payouts:read')
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The CSV file, streamed (its header line as the example)', content: { 'text/csv': { schema: { type: 'string' }, example: `${PAYOUT_CSV_HEADER.join(',')}\r\n` } } })
  @ApiOperation({ summary: 'Payouts as CSV', description: `The filters of GET /payouts. ${CSV_RULES}${PAYOUT_CSV_HEADER.join(', ')}. Never delivery codes.` })
  @ApiPayoutErrors('VALIDATION_FAILED')
  async exportPayouts(@CurrentVendor() vendor: VendorPrincipal, @Query() query: PayoutFilterQuery, @Res() response: Response): Promise<void> {
    const filter = { dateFrom: query.date_from, dateTo: query.date_to, status: query.status, method: query.method, referencePrefix: query.reference_prefix, batch: query.batch };
    instantRange(filter);
    await streamCsv(response, fileName('payouts', filter), PAYOUT_CSV_HEADER, this.lists.payoutCsvRows(vendor.vendorId, filter));
  }

  @Get('batches')
  @SkipEnvelope()
  @RequireScopes('payouts:read')
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The CSV file, streamed (its header line as the example)', content: { 'text/csv': { schema: { type: 'string' }, example: `${BATCH_CSV_HEADER.join(',')}\r\n` } } })
  @ApiOperation({ summary: 'Batches with their items as CSV', description: `The filters of GET /batches; one line per item. ${CSV_RULES}${BATCH_CSV_HEADER.join(', ')}.` })
  @ApiPayoutErrors('VALIDATION_FAILED')
  async exportBatches(@CurrentVendor() vendor: VendorPrincipal, @Query() query: BatchFilterQuery, @Res() response: Response): Promise<void> {
    const filter = { dateFrom: query.date_from, dateTo: query.date_to, referencePrefix: query.reference_prefix };
    instantRange(filter);
    await streamCsv(response, fileName('batches', filter), BATCH_CSV_HEADER, this.lists.batchCsvRows(vendor.vendorId, filter));
  }
}
