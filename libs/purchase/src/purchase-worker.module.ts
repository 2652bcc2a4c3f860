import { Module } from '@nestjs/common';
import { WorkerQueuesModule } from '#queues';
import { ReconciliationModule } from '#reconciliation';
import { PurchaseTimings } from './model/purchase-timings.js';
import { PurchaseOutcomesService } from './outcomes/purchase-outcomes.service.js';
import { PurchaseDomainModule } from './purchase-domain.module.js';
import { PurchaseSubmissionService } from './submission/purchase-submission.service.js';
import { PurchaseSweeperService } from './sweeper/purchase-sweeper.service.js';
import { PurchaseProviderLookup } from './verification/purchase-provider-lookup.js';
import { PurchaseVerificationService } from './verification/purchase-verification.service.js';
import { VerificationScheduler } from './verification/verification-scheduler.js';

/**
 * The purchase work of the reconciliation worker: submission, verification, and the sweeper. The
 * BullMQ handlers that deliver `purchase.submit` and `purchase.verify` to PurchaseSubmissionService and
 * PurchaseVerificationService live in the worker app (apps/reconciliation-worker/src/purchase).
 */
@Module({
  imports: [PurchaseDomainModule, WorkerQueuesModule, ReconciliationModule],
  providers: [PurchaseTimings, VerificationScheduler, PurchaseProviderLookup, PurchaseOutcomesService, PurchaseSubmissionService, PurchaseVerificationService, PurchaseSweeperService],
  exports: [PurchaseSweeperService, PurchaseOutcomesService, PurchaseSubmissionService, PurchaseVerificationService],
})
export class PurchaseWorkerModule {}
