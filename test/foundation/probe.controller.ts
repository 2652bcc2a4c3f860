import { Body, Controller, Get, Post } from '@nestjs/common';
import { IsInt, IsString, Min } from 'class-validator';
import { CurrentVendor, Public, RequireAbilities, RequireScopes, type VendorPrincipal } from '#auth';

class ProbeBody {
  @IsString()
  name: string;

  @IsInt()
  @Min(1)
  count: number;
}

/** Test-only routes that exercise the guard, the envelopes and the error mapping in isolation. */
@Controller('probe')
export class ProbeController {
  @Get('catalogue')
  @RequireAbilities('catalogue:read')
  catalogue(@CurrentVendor() vendor: VendorPrincipal) {
    return { vendor_id: vendor.vendorId };
  }

  @Get('payouts')
  @RequireScopes('payouts:read')
  payouts(@CurrentVendor() vendor: VendorPrincipal) {
    return { vendor_id: vendor.vendorId };
  }

  @Post('echo')
  @RequireAbilities('quotes:write')
  echo(@Body() body: ProbeBody) {
    return body;
  }

  @Get('undeclared')
  undeclared() {
    return { leaked: true };
  }

  @Get('boom')
  @Public()
  boom(): never {
    throw new Error('database password is hunter2');
  }
}
