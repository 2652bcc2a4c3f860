import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireScopes, type VendorPrincipal } from '#auth';
import { markIdempotentReplay } from '#common';
import { PayoutRequestDto, PayoutDeliveryService, PayoutRequestService, PayoutSmsResendService, type DeliveryView, type PayoutValidation, type PayoutView } from '#payout';
import { ApiEnvelope, ApiPayoutErrors } from '../openapi/payout-openapi.js';
import { PayoutCreationRoute, PayoutDryRunRoute } from '../http/payout-write-routes.js';
import { DeliverySchema, PayoutSchema, PayoutValidationSchema } from './payouts.schemas.js';

/** What creating a payout can refuse, and so what its dry run answers too (the same checks, in the same order). */
const PAYOUT_CREATION_ERRORS = [
  'VALIDATION_FAILED',
  'AMOUNT_INCREMENT_INVALID',
  'METHOD_UNAVAILABLE',
  'PROVIDER_REJECTED',
  'REFERENCE_CONFLICT',
  'INSUFFICIENT_FUNDS',
  'ACCOUNT_IN_DEBT',
  'VENDOR_NOT_RELEASED',
  'PROVIDER_NOT_CONFIGURED',
] as const;

/** A sandbox cash payout (phone not ending in a test suffix): paid at once, with its collection PIN. */
const PAID_CASH_PAYOUT = {
  id: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
  reference: 'order-1042',
  status: 'paid',
  status_reason: null,
  method: 'bank_a_instant_money',
  amount: '150.00',
  fee: '5.00',
  currency: 'ZAR',
  merchant_reference: 'GW_PO_6F1C2D3E4B5A4C6D8E7F9A0B1C2D3E4F',
  provider_reference: '3b8f1e52-9c4d-4a7e-b1f0-2d6c8e9a7b35',
  // Cash rails deliver a PIN and serial (vouchers add instructions and expiry); valid 30 days in the sandbox.
  delivery: { pin: '48213', serial: '5820019374', instructions: null, expires_at: null },
  metadata: { order_id: '1042' },
  created_at: '2026-11-24T08:00:00.000Z',
  paid_at: '2026-11-24T08:00:01.000Z',
};

const REFERENCE_PARAM = ApiParam({
  name: 'reference',
  description: "The vendor's own reference; URL-encode reserved characters (`/` as %2F, `:` as %3A)",
  example: 'order-1042',
});

@ApiTags('payouts')
@Controller('payouts')
export class PayoutsController {
  constructor(
    private readonly payouts: PayoutRequestService,
    private readonly delivery: PayoutDeliveryService,
    private readonly smsResends: PayoutSmsResendService,
  ) {}

  @PayoutCreationRoute(200, {
    operation: {
      summary: 'Send a payout',
      description:
        'Submitted to the provider inside the request; the verdict comes back with HTTP 200: `paid`, or `pending` (rtc_eft, or a ' +
        'provider that did not answer in time; poll GET /payouts/{reference}). A provider refusal answers 422 PROVIDER_REJECTED: the ' +
        'payout exists as `failed` (status_reason `provider_rejected`, GET /payouts/{reference} shows it) and its hold was released. ' +
        'The same reference and payload replays the stored result (the payout, or PROVIDER_REJECTED) without a second payment; a ' +
        'different payload is REFERENCE_CONFLICT. An amount off the method increment is AMOUNT_INCREMENT_INVALID, with every ' +
        "field's messages in `errors`. Amount plus fee is reserved at creation.",
    },
    schema: PayoutSchema,
    example: PAID_CASH_PAYOUT,
    errors: PAYOUT_CREATION_ERRORS,
  })
  async createPayout(
    @CurrentVendor() vendor: VendorPrincipal,
    @Body() body: PayoutRequestDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<PayoutView> {
    const { payout, replayed } = await this.payouts.createPayout(vendor, body);
    markIdempotentReplay(response, replayed);
    return payout;
  }

  @PayoutDryRunRoute({
    operation: {
      operationId: 'validatePayout',
      summary: 'Dry run of POST /payouts: what the real call would do, changing nothing',
      description:
        'The same body and the same checks as POST /api/v1/payouts, in the same order: validation, the reference (the same payload answers ' +
        '`outcome: replay`, another payload REFERENCE_CONFLICT, a payout the provider refused PROVIDER_REJECTED), readiness, the method rules and the ' +
        'funds for amount plus fee (INSUFFICIENT_FUNDS, ACCOUNT_IN_DEBT), each refusal answered exactly as the real call would answer it. Nothing is ' +
        'written, reserved or submitted, no webhook is sent, and the write rate bucket is not used (dry runs have a bucket of their own, the same size). ' +
        'A real call made afterwards can still be refused if the balance or limits changed in between.',
    },
    schema: PayoutValidationSchema,
    errors: PAYOUT_CREATION_ERRORS,
  })
  validatePayout(@CurrentVendor() vendor: VendorPrincipal, @Body() body: PayoutRequestDto): Promise<PayoutValidation> {
    return this.payouts.validatePayout(vendor, body);
  }

  @Get(':reference')
  @RequireScopes('payouts:read')
  @REFERENCE_PARAM
  @ApiOperation({ summary: 'The current payout', description: 'Never submits anything. Another vendor\'s reference answers 404.' })
  @ApiEnvelope(200, PayoutSchema, { data: PAID_CASH_PAYOUT })
  @ApiPayoutErrors('NOT_FOUND')
  getPayout(@CurrentVendor() vendor: VendorPrincipal, @Param('reference') reference: string): Promise<PayoutView> {
    return this.payouts.getPayout(vendor, reference);
  }

  @Get(':reference/delivery')
  @RequireScopes('payouts:delivery')
  @REFERENCE_PARAM
  @ApiOperation({
    summary: 'PIN, serial and voucher details of a paid payout',
    description:
      'Only for paid payouts (PAYOUT_NOT_PAID otherwise); rtc_eft is a bank credit without codes: its Delivery has every field null. ' +
      'Every read is audited with the token id.',
  })
  @ApiEnvelope(200, DeliverySchema, { data: PAID_CASH_PAYOUT.delivery })
  @ApiPayoutErrors('NOT_FOUND', 'PAYOUT_NOT_PAID')
  getDelivery(@CurrentVendor() vendor: VendorPrincipal, @Param('reference') reference: string): Promise<DeliveryView> {
    return this.delivery.readDelivery(vendor, reference);
  }

  @Post(':reference/resend-sms')
  @HttpCode(200)
  @RequireScopes('payouts:write')
  @REFERENCE_PARAM
  @ApiOperation({
    summary: 'Send the collection SMS again',
    description:
      'Cash rails only (METHOD_UNAVAILABLE otherwise), paid payouts only. The provider caps resends and then applies a 30-minute ' +
      'cooldown: RATE_LIMITED with Retry-After (the general per-token throttle is API_RATE_LIMITED). Never creates a payout.',
  })
  @ApiEnvelope(200, null)
  @ApiPayoutErrors('NOT_FOUND', 'METHOD_UNAVAILABLE', 'PAYOUT_NOT_PAID', 'RATE_LIMITED', 'PROVIDER_REJECTED', 'PROVIDER_UNAVAILABLE')
  async resendSms(@CurrentVendor() vendor: VendorPrincipal, @Param('reference') reference: string): Promise<null> {
    await this.smsResends.resendSms(vendor, reference);
    return null;
  }
}
