import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireScopes, type VendorPrincipal } from '#auth';
import { BatchRequestDto, PayoutBatchesService, type BatchView } from '#payout';
import { ApiEnvelope, ApiPayoutErrors, BatchSchema } from '../openapi/payout-schemas.js';

/** A two-item sandbox batch as accepted: reserved, items queued for the worker. */
const ACCEPTED_BATCH = {
  id: '9a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d',
  reference: 'batch-2026-11-24',
  status: 'processing',
  total_amount: '350.00',
  total_fee: '10.00',
  item_count: 2,
  payouts: [
    { reference: 'batch-2026-11-24-1', amount: '150.00', suffix: '1' },
    { reference: 'batch-2026-11-24-2', amount: '200.00', suffix: '2' },
  ].map((item) => ({
    id: `9a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5${item.suffix}`,
    reference: item.reference,
    status: 'pending',
    status_reason: 'queued',
    method: 'bank_a_instant_money',
    amount: item.amount,
    fee: '5.00',
    currency: 'ZAR',
    merchant_reference: `GW_PO_9A7B6C5D4E3F4A2B9C1D0E9F8A7B6C5${item.suffix}`,
    provider_reference: null,
    delivery: null,
    metadata: null,
    created_at: '2026-11-24T08:00:00.000Z',
    paid_at: null,
  })),
  created_at: '2026-11-24T08:00:00.000Z',
  currency: 'ZAR',
};

@ApiTags('batches')
@Controller('batches')
export class BatchesController {
  constructor(private readonly batches: PayoutBatchesService) {}

  @Post()
  @HttpCode(202)
  @RequireScopes('payouts:write')
  @ApiOperation({
    summary: 'Send up to 500 payouts',
    description:
      'Validated and reserved atomically: one bad row (errors keyed `payouts.{index}.{field}`) or a balance that does not cover ' +
      'the total rejects the whole batch and reserves nothing. Items are then submitted one by one in the background; poll ' +
      'GET /batches/{reference}. Replaying an identical batch returns it; changed details are REFERENCE_CONFLICT.',
  })
  @ApiEnvelope(202, BatchSchema, { data: ACCEPTED_BATCH })
  @ApiPayoutErrors('VALIDATION_FAILED', 'AMOUNT_INCREMENT_INVALID', 'METHOD_UNAVAILABLE', 'REFERENCE_CONFLICT', 'INSUFFICIENT_FUNDS', 'ACCOUNT_IN_DEBT', 'VENDOR_NOT_RELEASED', 'PROVIDER_NOT_CONFIGURED')
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
  @ApiParam({ name: 'reference', description: 'The batch reference; URL-encode reserved characters' })
  @ApiOperation({ summary: 'A batch and its items', description: 'Item statuses are polled individually; only `paid` completes a withdrawal.' })
  @ApiEnvelope(200, BatchSchema)
  @ApiPayoutErrors('NOT_FOUND')
  getBatch(@CurrentVendor() vendor: VendorPrincipal, @Param('reference') reference: string): Promise<BatchView> {
    return this.batches.getBatch(vendor, reference);
  }
}
