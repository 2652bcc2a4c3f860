import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireAbilities, type VendorPrincipal } from '#auth';
import { PurchaseSpendControlsService } from '#purchase';
import { ApiEnvelope, ApiPurchaseErrors, RATE_LIMITED } from '../openapi/purchase-openapi.js';
import { LimitsSchema } from './limits.schemas.js';

@ApiTags('limits')
@Controller('limits')
export class LimitsController {
  constructor(private readonly spendControls: PurchaseSpendControlsService) {}

  @Get()
  @RequireAbilities('limits:read')
  @ApiOperation({ operationId: 'getLimits', summary: 'Daily allowance, transaction maximum, velocity settings and pause state', description: 'The limits a purchase is checked against right now: the daily allowance in ZAR cents (Africa/Johannesburg day) with what is used and left, the largest single charge, the velocity limit and whether purchases are paused (and at which scope). Null members are not configured.' })
  // The demo vendor's spend controls (R50 000 a day, R5 000 a purchase, 120 a minute), one R12.60 PIN bought today.
  @ApiEnvelope(200, LimitsSchema, undefined, {
    configured: true,
    currency: 'ZAR',
    day: '2026-11-24',
    daily_cap_minor: 5_000_000,
    used_today_minor: 1260,
    remaining_today_minor: 4_998_740,
    transaction_max_minor: 500_000,
    velocity_count: 120,
    velocity_window_seconds: 60,
    purchases_paused: false,
    paused_scope: null,
  })
  @ApiPurchaseErrors(RATE_LIMITED)
  limits(@CurrentVendor() vendor: VendorPrincipal) {
    return this.spendControls.limitsFor(vendor.vendorId);
  }
}
