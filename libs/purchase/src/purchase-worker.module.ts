import { Module } from '@nestjs/common';
import { WorkerQueuesModule } from '#queues';
import { ReconciliationModule } from '#reconciliation';
import { PurchaseTimings } from './model/purchase-timings.js';
import { PurchaseOutcomesService } from './outcomes/purchase-outcomes.service.js';
import { PurchaseDomainModule } from './purchase-domain.module.js';
import { PurchaseSubmissionClaimsService } from './submission/purchase-submission-claims.service.js';
import { PurchaseSubmissionService } from './submission/purchase-submission.service.js';
import { PurchaseSweeperService } from './sweeper/purchase-sweeper.service.js';
import { PurchaseCallbackClaimsService } from './verification/purchase-callback-claims.service.js';
import { PurchaseCheckClaimsService } from './verification/purchase-check-claims.service.js';
import { PurchaseProviderLookup } from './verification/purchase-provider-lookup.js';
import { PurchaseVerificationService } from './verification/purchase-verification.service.js';

/**
 * The purchase work of the reconciliation worker: submission (claimed from PostgreSQL by
 * PurchaseSubmissionClaimsService), verification (due checks and callback markers claimed by
 * PurchaseCheckClaimsService and PurchaseCallbackClaimsService; staff's requests as jobs), and the sweeper. The
 * BullMQ handlers that deliver `purchase.submit` and `purchase.verify` to PurchaseSubmissionService and
 * PurchaseVerificationService live in the worker app (apps/reconciliation-worker/src/purchase).
 */
@Module({
  imports: [PurchaseDomainModule, WorkerQueuesModule, ReconciliationModule],
  providers: [PurchaseTimings, PurchaseProviderLookup, PurchaseOutcomesService, PurchaseSubmissionService, PurchaseSubmissionClaimsService, PurchaseVerificationService, PurchaseCheckClaimsService, PurchaseCallbackClaimsService, PurchaseSweeperService],
  exports: [PurchaseSweeperService, PurchaseSubmissionClaimsService, PurchaseCheckClaimsService, PurchaseCallbackClaimsService, PurchaseOutcomesService, PurchaseSubmissionService, PurchaseVerificationService],
})
export class PurchaseWorkerModule {}
