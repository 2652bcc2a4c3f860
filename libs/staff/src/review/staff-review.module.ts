import { Module } from '@nestjs/common';
import { VendorAccountsModule } from '#auth';
import { PayoutDomainModule } from '#payout';
import { PurchaseDomainModule, PurchaseOutcomesService, PurchaseTimings } from '#purchase';
import { ReconciliationModule } from '#reconciliation';
import { ManualResolutionRepository } from '../persistence/manual-resolution.repository.js';
import { ReviewItemWorkRepository } from '../persistence/review-item-work.repository.js';
import { StaffModule } from '../staff.module.js';
import { ReviewProposalKinds } from './review-proposal-kinds.js';
import { ReviewQueues } from './review-queues.service.js';
import { VendorFunding } from '../vendors/vendor-funding.service.js';
import { VendorOperations } from '../vendors/vendor-operations.service.js';
import { VendorProposalKinds } from '../vendors/vendor-proposal-kinds.js';

/**
 * The review queues and their four-eyes resolutions, and vendor funding under four eyes (the back-office). Its own
 * PurchaseOutcomesService instance is the same stateless class the worker and settlement use,
 * so a staff resolution moves a purchase exactly as a verified lookup does.
 */
@Module({
  imports: [StaffModule, VendorAccountsModule, PurchaseDomainModule, PayoutDomainModule, ReconciliationModule],
  providers: [PurchaseTimings, PurchaseOutcomesService, ManualResolutionRepository, ReviewItemWorkRepository, ReviewProposalKinds, VendorProposalKinds, VendorFunding, VendorOperations, ReviewQueues],
  exports: [ReviewQueues, VendorFunding, VendorOperations],
})
export class StaffReviewModule {}
