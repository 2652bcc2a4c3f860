import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireScopes, type VendorPrincipal } from '#auth';
import { PayoutMethodsService, type MethodView } from '#payout';
import { ApiEnvelope } from '../openapi/payout-openapi.js';
import { MethodSchema } from './methods.schemas.js';

@ApiTags('methods')
@Controller('methods')
export class MethodsController {
  constructor(private readonly methods: PayoutMethodsService) {}

  @Get()
  @RequireScopes('payouts:read')
  @ApiOperation({
    summary: 'Methods enabled for this vendor',
    description: 'Limits, increment, effective fee and whether a bank account is required. Limits can change: read them before submitting.',
  })
  @ApiEnvelope(200, MethodSchema, { isArray: true })
  listMethods(@CurrentVendor() vendor: VendorPrincipal): Promise<MethodView[]> {
    return this.methods.listMethodViews(vendor.vendorId);
  }
}
