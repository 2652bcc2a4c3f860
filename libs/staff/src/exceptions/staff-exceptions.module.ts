import { Module } from '@nestjs/common';
import { PayoutDomainModule } from '#payout';
import { PurchaseDomainModule } from '#purchase';
import { ReconciliationModule } from '#reconciliation';
import { StaffModule } from '../staff.module.js';
import { ExceptionDesk } from './exception-desk.service.js';
import { ExceptionProposalKinds } from './exception-proposal-kinds.js';

/**
 * The reconciliation exceptions as a staff queue, and their money resolutions under four eyes
 * (the `exception.resolve` proposal kind): imported by the back-office and the operator CLI, so
 * both resolve through ExceptionDesk.
 */
@Module({
  imports: [StaffModule, ReconciliationModule, PayoutDomainModule, PurchaseDomainModule],
  providers: [ExceptionDesk, ExceptionProposalKinds],
  exports: [ExceptionDesk],
})
export class StaffExceptionsModule {}
