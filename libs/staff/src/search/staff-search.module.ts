import { Module } from '@nestjs/common';
import { VendorAccountsModule } from '#auth';
import { PayoutDomainModule } from '#payout';
import { PurchaseDomainModule } from '#purchase';
import { StaffExceptionsModule } from '../exceptions/staff-exceptions.module.js';
import { StaffSearch } from './staff-search.service.js';

/** The back-office's global search (StaffSearch): reads only. */
@Module({
  imports: [VendorAccountsModule, PurchaseDomainModule, PayoutDomainModule, StaffExceptionsModule],
  providers: [StaffSearch],
  exports: [StaffSearch],
})
export class StaffSearchModule {}
