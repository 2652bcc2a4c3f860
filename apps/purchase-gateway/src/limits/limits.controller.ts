import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireAbilities, type VendorPrincipal } from '#auth';
import { SpendControlsService } from '#purchase';
import { ApiEnvelope, ApiPurchaseErrors, RATE_LIMITED } from '../openapi/purchase-openapi.js';
import { LimitsSchema } from './limits.schema.js';

@ApiTags('limits')
@Controller('limits')
export class LimitsController {
  constructor(private readonly spendControls: SpendControlsService) {}

  @Get()
  @RequireAbilities('limits:read')
  @ApiOperation({ operationId: 'getLimits', summary: 'Daily allowance, transaction maximum, velocity settings and pause state' })
  @ApiEnvelope(200, LimitsSchema)
  @ApiPurchaseErrors(RATE_LIMITED)
  limits(@CurrentVendor() vendor: VendorPrincipal) {
    return this.spendControls.limitsFor(vendor.vendorId);
  }
}
