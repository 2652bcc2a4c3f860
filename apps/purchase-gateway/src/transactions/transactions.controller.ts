import { Body, Controller, Get, Header, HttpCode, Param, Post, Query, Res, UseInterceptors } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentVendor, RequireAbilities, type VendorPrincipal } from '#auth';
import { markIdempotentReplay, RateLimitBucketOf } from '#common';
import { assertDateOrder, CreateTransactionBody, PurchaseFulfilmentService, PurchaseAdmissionService, REFERENCE_PATTERN, TransactionListQuery, PurchaseQueryService, type PurchaseRequest } from '#purchase';
import { ApiEnvelope, ApiPurchaseErrors, RATE_LIMITED } from '../openapi/purchase-openapi.js';
import { IdempotencyKeyIntoBody } from './idempotency-key-into-body.interceptor.js';
import { FulfilmentSchema, TransactionPageSchema, TransactionSchema, TransactionValidationSchema } from './transactions.schemas.js';

/** What a poll shows once the sandbox completed a R12 PIN (10107): the PIN is fetched from /fulfilment. */
const COMPLETED_PURCHASE = {
  id: '0b9d4e1c-7a3f-4f6e-9d21-5c8a2e7b1f40',
  reference: 'order-2026-0001',
  status: 'completed',
  product_id: 10107,
  quote_id: '5d2c8e1a-3b4f-4e6a-9c7d-1f2e3a4b5c6d',
  charge_minor: 1260,
  currency: 'ZAR',
  destination_amount: '12.00',
  destination_unit: 'ZAR',
  error_code: null,
  fulfilment_available: true,
  created_at: '2026-11-24T08:00:00.000Z',
  updated_at: '2026-11-24T08:00:01.300Z',
  completed_at: '2026-11-24T08:00:01.300Z',
  reversed_at: null,
};

/** What admitting a purchase can refuse, and so what its dry run answers too (the same statement, rolled back). */
const PURCHASE_ADMISSION_ERRORS = [
  'VALIDATION_FAILED',
  'IDEMPOTENCY_CONFLICT',
  'QUOTE_ALREADY_USED',
  'QUOTE_EXPIRED',
  'PURCHASES_PAUSED',
  'SPEND_CONTROLS_NOT_CONFIGURED',
  'PRICING_UNPUBLISHED',
  'VENDOR_NOT_RELEASED',
  'TRANSACTION_MAXIMUM_EXCEEDED',
  'DAILY_CAP_EXCEEDED',
  'VELOCITY_LIMIT_EXCEEDED',
  RATE_LIMITED,
  'PROVIDER_NOT_CONFIGURED',
] as const;

const IDEMPOTENCY_KEY_HEADER = ApiHeader({
  name: 'Idempotency-Key',
  required: true,
  description: '1 to 128 letters, digits or _ . : -; keep it stable across retries',
  schema: { type: 'string', pattern: REFERENCE_PATTERN.source, minLength: 1, maxLength: 128 },
});

/** The admission's request; the key was validated with the body (IdempotencyKeyIntoBody): every problem is answered in one 422. */
function purchaseRequestOf(body: CreateTransactionBody): PurchaseRequest {
  return { idempotencyKey: body['Idempotency-Key'], quoteId: body.quote_id.toLowerCase(), reference: body.reference };
}

@ApiTags('transactions')
@Controller('transactions')
export class TransactionsController {
  constructor(
    private readonly admission: PurchaseAdmissionService,
    private readonly transactions: PurchaseQueryService,
    private readonly fulfilments: PurchaseFulfilmentService,
  ) {}

  @Post()
  @HttpCode(202)
  @RequireAbilities('transactions:write')
  @ApiOperation({
    operationId: 'createTransaction',
    summary: 'Buy a quote, once',
    description:
      '202 means durably accepted (the purchase and its submission are committed), not delivered: poll GET /transactions/{id}. ' +
      'An exact replay (same Idempotency-Key, quote_id and reference) returns the same transaction in its current state with 202, even after the quote expired or purchases were paused (header `Idempotent-Replayed: true`). ' +
      'A key reused with another quote or reference, or a reference reused under another key, answers IDEMPOTENCY_CONFLICT. An unknown `quote_id`, or one of another vendor, is invalid input: VALIDATION_FAILED on `quote_id`. A rejected request (any error) stores nothing, so the same key may be retried.',
  })
  @IDEMPOTENCY_KEY_HEADER
  @ApiEnvelope(202, TransactionSchema)
  @ApiPurchaseErrors(...PURCHASE_ADMISSION_ERRORS)
  @UseInterceptors(IdempotencyKeyIntoBody)
  async create(@CurrentVendor() vendor: VendorPrincipal, @Body() body: CreateTransactionBody, @Res({ passthrough: true }) response: Response) {
    const result = await this.admission.admit(vendor.vendorId, purchaseRequestOf(body));
    markIdempotentReplay(response, result.replayed);
    return result.transaction;
  }

  @Post('validate')
  @HttpCode(200)
  @RequireAbilities('transactions:write')
  @RateLimitBucketOf('validate')
  @ApiOperation({
    operationId: 'validateTransaction',
    summary: 'Dry run of POST /transactions: what the real call would do, changing nothing',
    description:
      'The same body, the same Idempotency-Key header and the same checks as POST /transactions, in the same order: validation, the key ' +
      '(the same key, quote and reference answer `outcome: replay` with the transaction the real call would answer; a key reused with another ' +
      'quote or reference, or the reference under another key, IDEMPOTENCY_CONFLICT), the quote (unknown, used, expired), pauses, spend ' +
      'controls, pricing, release, the per-transaction maximum, velocity and the daily cap, each refusal answered exactly as the real call ' +
      'would answer it (the gateway runs the real admission and rolls it back). Purchases draw on spend controls, not a prefunded balance. ' +
      'Nothing is stored, counted or submitted: no transaction, key claim, quote use, allowance or velocity count, provider call or webhook; ' +
      'the write rate bucket is not used (dry runs have a bucket of their own, the same size). A real call made afterwards can still be ' +
      'refused if the quote, the limits or the allowance changed in between.',
  })
  @IDEMPOTENCY_KEY_HEADER
  @ApiEnvelope(200, TransactionValidationSchema, undefined, {
    outcome: 'create',
    reference: 'order-2026-0001',
    quote_id: COMPLETED_PURCHASE.quote_id,
    product_id: 10107,
    charge_minor: 1260,
    currency: 'ZAR',
    destination_amount: '12.00',
    destination_unit: 'ZAR',
    transaction: null,
    remaining_today_minor: 98740,
    velocity_remaining: 9,
  })
  @ApiPurchaseErrors(...PURCHASE_ADMISSION_ERRORS)
  @UseInterceptors(IdempotencyKeyIntoBody)
  validate(@CurrentVendor() vendor: VendorPrincipal, @Body() body: CreateTransactionBody) {
    return this.admission.validate(vendor.vendorId, purchaseRequestOf(body));
  }

  @Get()
  @RequireAbilities('transactions:read')
  @ApiOperation({ operationId: 'listTransactions', summary: 'The vendor’s transactions, newest first', description: "The vendor's purchases, newest first, paginated (`page`, `per_page`), optionally filtered by status, reference, product and admission day (Africa/Johannesburg). Follow every page; each item is as GET /transactions/{id} answers it." })
  @ApiEnvelope(200, TransactionPageSchema)
  @ApiPurchaseErrors('VALIDATION_FAILED', RATE_LIMITED)
  list(@CurrentVendor() vendor: VendorPrincipal, @Query() query: TransactionListQuery) {
    assertDateOrder(query);
    return this.transactions.list(vendor.vendorId, {
      status: query.status,
      reference: query.reference,
      productId: query.product_id,
      dateFrom: query.date_from,
      dateTo: query.date_to,
      page: query.page,
      perPage: query.per_page,
    });
  }

  @Get('by-reference/:reference')
  @RequireAbilities('transactions:read')
  @ApiOperation({ operationId: 'getTransactionByReference', summary: 'Recover a purchase by your reference', description: "The purchase made with this reference (the vendor's own, unique per vendor): how a client that lost the answer to POST /transactions (a timeout) learns the id and status without buying again. 404 when no purchase was admitted with it." })
  @ApiParam({ name: 'reference' })
  @ApiEnvelope(200, TransactionSchema, undefined, COMPLETED_PURCHASE)
  @ApiPurchaseErrors('NOT_FOUND', RATE_LIMITED)
  byReference(@CurrentVendor() vendor: VendorPrincipal, @Param('reference') reference: string) {
    return this.transactions.getByReference(vendor.vendorId, reference);
  }

  @Get(':id')
  @RequireAbilities('transactions:read')
  @ApiOperation({ operationId: 'getTransaction', summary: 'One of the vendor’s transactions', description: "The purchase's current status: poll it after POST /transactions until it is completed, failed or reversed (review is decided by staff). Only a verified provider lookup moves a purchase. PINs and eSIM data are fetched from /transactions/{id}/fulfilment." })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(200, TransactionSchema, undefined, COMPLETED_PURCHASE)
  @ApiPurchaseErrors('NOT_FOUND', RATE_LIMITED)
  get(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string) {
    return this.transactions.get(vendor.vendorId, id.toLowerCase());
  }

  @Get(':id/fulfilment')
  @RequireAbilities('fulfilment:read')
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({
    operationId: 'getTransactionFulfilment',
    summary: 'PIN or eSIM delivery data of a completed transaction',
    description:
      'Restricted to `fulfilment:read`; every read is audited (token, transaction, time); served with `Cache-Control: no-store`. ' +
      '409 FULFILMENT_UNAVAILABLE until the transaction is completed with delivery data, after a reversal, and for products without a PIN or eSIM; ' +
      '404 NOT_FOUND for an id that is not one of your transactions.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiEnvelope(200, FulfilmentSchema, undefined, {
    transaction_id: '0b9d4e1c-7a3f-4f6e-9d21-5c8a2e7b1f40',
    kind: 'pin',
    pin: { code: '1234567890123456', serial: 'SN000000000001' },
    esim: null,
  })
  @ApiPurchaseErrors('NOT_FOUND', 'FULFILMENT_UNAVAILABLE', RATE_LIMITED)
  fulfilment(@CurrentVendor() vendor: VendorPrincipal, @Param('id') id: string, @Res({ passthrough: true }) response: Response) {
    response.setHeader('Cache-Control', 'no-store');
    return this.fulfilments.read({ vendorId: vendor.vendorId, tokenId: vendor.tokenId }, id.toLowerCase());
  }
}
