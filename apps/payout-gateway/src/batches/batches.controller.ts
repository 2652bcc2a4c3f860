import { Body, Controller, Get, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireScopes, type VendorPrincipal } from '#auth';
import { markIdempotentReplay } from '#common';
import { BatchRequestDto, PayoutBatchRequestService, type BatchValidation, type BatchView } from '#payout';
import { ApiEnvelope, ApiPayoutErrors } from '../openapi/payout-openapi.js';
import { PayoutCreationRoute, PayoutDryRunRoute } from '../http/payout-write-routes.js';
import { BatchSchema, BatchValidationSchema } from './batches.schemas.js';

/** What creating a batch can refuse, and so what its dry run answers too (the same checks, in the same order). */
const BATCH_CREATION_ERRORS = [
  'VALIDATION_FAILED',
  'AMOUNT_INCREMENT_INVALID',
  'METHOD_UNAVAILABLE',
  'REFERENCE_CONFLICT',
  'INSUFFICIENT_FUNDS',
  'ACCOUNT_IN_DEBT',
  'VENDOR_NOT_RELEASED',
  'PROVIDER_NOT_CONFIGURED',
] as const;

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

/** The dry run of ACCEPTED_BATCH on an account holding 10,000.00: what the real call would reserve. */
const VALIDATED_BATCH = {
  outcome: 'create',
  reference: 'batch-2026-11-24',
  item_count: 2,
  total_amount: '350.00',
  total_fee: '10.00',
  total_hold: '360.00',
  currency: 'ZAR',
  available_after: '9640.00',
  payouts: [
    { outcome: 'create', reference: 'batch-2026-11-24-1', method: 'bank_a_instant_money', amount: '150.00', fee: '5.00', currency: 'ZAR', hold: '155.00', available_after: '9845.00' },
    { outcome: 'create', reference: 'batch-2026-11-24-2', method: 'bank_a_instant_money', amount: '200.00', fee: '5.00', currency: 'ZAR', hold: '205.00', available_after: '9640.00' },
  ],
};

@ApiTags('batches')
@Controller('batches')
export class BatchesController {
  constructor(private readonly batches: PayoutBatchRequestService) {}

  @PayoutCreationRoute(202, {
    operation: {
      summary: 'Send up to 500 payouts',
      description:
        'Validated and reserved atomically: one bad row (errors keyed `payouts.{index}.{field}`) or a balance that does not cover ' +
        'the total rejects the whole batch and reserves nothing. Items are then submitted one by one in the background; poll ' +
        'GET /batches/{reference}. Replaying an identical batch returns it; changed details are REFERENCE_CONFLICT.',
    },
    schema: BatchSchema,
    example: ACCEPTED_BATCH,
    errors: BATCH_CREATION_ERRORS,
  })
  async createBatch(
    @CurrentVendor() vendor: VendorPrincipal,
    @Body() body: BatchRequestDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BatchView> {
    const { batch, replayed } = await this.batches.createBatch(vendor, body);
    markIdempotentReplay(response, replayed);
    return batch;
  }

  @PayoutDryRunRoute({
    operation: {
      operationId: 'validateBatch',
      summary: 'Dry run of POST /batches: what the real call would do, item by item, changing nothing',
      description:
        'The same body and the same checks as POST /api/v1/batches, in the same order: validation, the batch reference (the same payload ' +
        'answers `outcome: replay` with the stored items, another payload REFERENCE_CONFLICT), readiness, every item\'s method rules and ' +
        'reference (repeated in the request or already used; every problem keyed `payouts.{index}.{field}` in one answer), and the funds for ' +
        'the whole batch (INSUFFICIENT_FUNDS, ACCOUNT_IN_DEBT), each refusal answered exactly as the real call would answer it. On success ' +
        'every item says what would happen to it (fee, hold, the balance left once it is held). Nothing is written, reserved, queued or ' +
        'submitted, no webhook is sent, and the write rate bucket is not used (dry runs have a bucket of their own, the same size). A real ' +
        'call made afterwards can still be refused if the balance or limits changed in between.',
    },
    schema: BatchValidationSchema,
    example: VALIDATED_BATCH,
    errors: BATCH_CREATION_ERRORS,
  })
  validateBatch(@CurrentVendor() vendor: VendorPrincipal, @Body() body: BatchRequestDto): Promise<BatchValidation> {
    return this.batches.validateBatch(vendor, body);
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
