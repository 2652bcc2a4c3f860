import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentVendor, RequireScopes, type VendorPrincipal } from '#auth';
import { PayoutAccountService, type AccountView } from '#payout';
import { ApiEnvelope } from '../openapi/payout-openapi.js';
import { AccountSchema } from './account.schemas.js';

@ApiTags('account')
@Controller('account')
export class AccountController {
  constructor(private readonly accounts: PayoutAccountService) {}

  @Get()
  @RequireScopes('payouts:read')
  @ApiOperation({ summary: 'The prefunded account', description: '`available` must cover a payout amount plus its fee; `reserved` is held for unfinished payouts.' })
  @ApiEnvelope(200, AccountSchema)
  getAccount(@CurrentVendor() vendor: VendorPrincipal): Promise<AccountView> {
    return this.accounts.getAccountView(vendor.vendorId);
  }
}
