import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireAbilities, type VendorPrincipal } from '#auth';
import { PurchaseLookupsService } from '#purchase';
import { DEFAULT_PER_PAGE, IdentifierLookupBody, MobileNumberLookupBody, StatementLookupBody } from '#purchase';
import type { PurchaseApiErrorCode } from '../http/purchase-envelope.js';
import { ApiEnvelope, ApiPurchaseErrors, RATE_LIMITED } from '../openapi/purchase-openapi.js';
import {
  AccountLookupSchema,
  EsimBenefitsLookupSchema,
  EsimStatusLookupSchema,
  OperatorPageSchema,
  StatementLookupSchema,
} from './lookups.schemas.js';

const LOOKUP_ERRORS: PurchaseApiErrorCode[] = [
  'VALIDATION_FAILED',
  'PRODUCT_UNAVAILABLE',
  'PROVIDER_NOT_CONFIGURED',
  'PROVIDER_HTTP_ERROR',
  'PROVIDER_OUTCOME_UNKNOWN',
  'VENDOR_NOT_RELEASED',
  RATE_LIMITED,
];

/** Provider lookups within the vendor's catalogue; they never return PINs or activation codes. */
@ApiTags('lookups')
@Controller('lookups')
export class LookupsController {
  constructor(private readonly lookups: PurchaseLookupsService) {}

  @Post('mobile-number')
  @HttpCode(200)
  @RequireAbilities('lookups:read')
  @ApiOperation({
    operationId: 'lookupMobileNumber',
    summary: 'Operators a mobile number belongs to',
    description: '`product_id` is optional. Only operators of the vendor’s enabled products are returned. Paginated with `page`/`per_page` in the body.',
  })
  @ApiEnvelope(200, OperatorPageSchema)
  @ApiPurchaseErrors(...LOOKUP_ERRORS)
  mobileNumber(@CurrentVendor() vendor: VendorPrincipal, @Body() body: MobileNumberLookupBody) {
    return this.lookups.mobileNumber(vendor.vendorId, body.mobile_number, body.product_id, body.page ?? 1, body.per_page ?? DEFAULT_PER_PAGE);
  }

  @Post('statement')
  @HttpCode(200)
  @RequireAbilities('lookups:read')
  @ApiOperation({ operationId: 'lookupStatement', summary: 'Statement or bill inquiry for an enabled bill-payment product', description: 'Asks the provider for the statement or bill of an account (amount due, holder) before a bill payment. Read-only: nothing is bought or reserved. The product must be enabled for the vendor and support statement lookups.' })
  @ApiEnvelope(200, StatementLookupSchema)
  @ApiPurchaseErrors(...LOOKUP_ERRORS)
  statement(@CurrentVendor() vendor: VendorPrincipal, @Body() body: StatementLookupBody) {
    return this.lookups.statement(vendor.vendorId, body.product_id, body.account_number, body.account_qualifier);
  }

  @Post('account')
  @HttpCode(200)
  @RequireAbilities('lookups:read')
  @ApiOperation({ operationId: 'lookupAccount', summary: 'Account validation for an enabled product', description: 'Asks the provider whether an account or meter exists for the product and returns its masked holder, so a purchase is not sent to a mistyped number. Read-only: nothing is bought or reserved.' })
  @ApiEnvelope(200, AccountLookupSchema)
  @ApiPurchaseErrors(...LOOKUP_ERRORS)
  account(@CurrentVendor() vendor: VendorPrincipal, @Body() body: IdentifierLookupBody) {
    return this.lookups.account(vendor.vendorId, body.product_id, body.credit_party_identifier);
  }

  @Post('esim-benefits')
  @HttpCode(200)
  @RequireAbilities('lookups:read')
  @ApiOperation({ operationId: 'lookupEsimBenefits', summary: 'Remaining benefits of an eSIM', description: 'The data, minutes and messages left on an eSIM bought earlier, as the provider reports them. Read-only; never returns activation codes.' })
  @ApiEnvelope(200, EsimBenefitsLookupSchema)
  @ApiPurchaseErrors(...LOOKUP_ERRORS)
  esimBenefits(@CurrentVendor() vendor: VendorPrincipal, @Body() body: IdentifierLookupBody) {
    return this.lookups.esimBenefits(vendor.vendorId, body.product_id, body.credit_party_identifier);
  }

  @Post('esim-status')
  @HttpCode(200)
  @RequireAbilities('lookups:read')
  @ApiOperation({ operationId: 'lookupEsimStatus', summary: 'Installation and activation dates of an eSIM', description: 'When an eSIM bought earlier was installed and activated, as the provider reports it (null dates while not yet). Read-only; never returns activation codes.' })
  @ApiEnvelope(200, EsimStatusLookupSchema)
  @ApiPurchaseErrors(...LOOKUP_ERRORS)
  esimStatus(@CurrentVendor() vendor: VendorPrincipal, @Body() body: IdentifierLookupBody) {
    return this.lookups.esimStatus(vendor.vendorId, body.product_id, body.credit_party_identifier);
  }
}
