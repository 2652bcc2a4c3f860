import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { PurchaseLookups } from './purchase-lookups.service.js';

@Controller('dvs/v1/lookups')
export class PurchaseLookupsController {
  constructor(private readonly lookups: PurchaseLookups) {}

  @Post('mobile-number')
  @HttpCode(200)
  mobileNumber(@Body() body: unknown) {
    return this.lookups.mobileNumber(body);
  }

  @Post('statement')
  @HttpCode(200)
  statement(@Body() body: unknown) {
    return this.lookups.statement(body);
  }

  @Post('account')
  @HttpCode(200)
  account(@Body() body: unknown) {
    return this.lookups.account(body);
  }

  @Post('esim-benefits')
  @HttpCode(200)
  esimBenefits(@Body() body: unknown) {
    return this.lookups.esimBenefits(body);
  }

  @Post('esim-status')
  @HttpCode(200)
  esimStatus(@Body() body: unknown) {
    return this.lookups.esimStatus(body);
  }
}
