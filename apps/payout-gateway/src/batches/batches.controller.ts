import { Body, Controller, Get, Header, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireScopes, type VendorPrincipal } from '#auth';
import { PayoutBatchesService, type BatchView } from '#payout';
import { ApiEnvelope, ApiPayoutErrors, BatchSchema } from '../openapi/payout-schemas.js';
import { BatchRequestDto } from './dto/batch-request.dto.js';

@ApiTags('batches')
@Controller('batches')
export class BatchesController {
  constructor(private readonly batches: PayoutBatchesService) {}

  @Post()
  @HttpCode(202)
  @RequireScopes('payouts:write')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Send up to 500 payouts',
    description:
      'Validated and reserved atomically: one bad row (errors keyed `payouts.{index}.{field}`) or a balance that does not cover ' +
      'the total rejects the whole batch and reserves nothing. Items are then submitted one by one in the background; poll ' +
      'GET /batches/{reference}. Replaying an identical batch returns it; changed details are REFERENCE_CONFLICT.',
  })
  @ApiEnvelope(202, BatchSchema)
  @ApiPayoutErrors('VALIDATION_FAILED', 'AMOUNT_INCREMENT_INVALID', 'METHOD_UNAVAILABLE', 'REFERENCE_CONFLICT', 'INSUFFICIENT_FUNDS', 'VENDOR_NOT_RELEASED', 'PROVIDER_NOT_CONFIGURED')
  async createBatch(
    @CurrentVendor() vendor: VendorPrincipal,
    @Body() body: BatchRequestDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BatchView> {
    const { batch, replayed } = await this.batches.createBatch(vendor, body);
    if (replayed) response.setHeader('Idempotent-Replayed', 'true');
    return batch;
  }

  @Get(':reference')
  @RequireScopes('payouts:read')
  @Header('Cache-Control', 'no-store')
  @ApiParam({ name: 'reference', description: 'The batch reference; URL-encode reserved characters' })
  @ApiOperation({ summary: 'A batch and its items', description: 'Item statuses are polled individually; only `paid` completes a withdrawal.' })
  @ApiEnvelope(200, BatchSchema)
  @ApiPayoutErrors('NOT_FOUND')
  getBatch(@CurrentVendor() vendor: VendorPrincipal, @Param('reference') reference: string): Promise<BatchView> {
    return this.batches.getBatch(vendor, reference);
  }
}
