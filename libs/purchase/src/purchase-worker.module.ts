import { Module } from '@nestjs/common';
import { WorkerQueuesModule } from '#queues';
import { ReconciliationModule } from '#reconciliation';
import { PurchaseTimings } from './model/purchase-timings.js';
import { PurchaseOutcomesService } from './outcomes/purchase-outcomes.service.js';
import { PurchaseDomainModule } from './purchase-domain.module.js';
import { PurchaseSubmissionClaims } from './submission/purchase-submission-claims.service.js';
import { PurchaseSubmissionService } from './submission/purchase-submission.service.js';
import { PurchaseSweeperService } from './sweeper/purchase-sweeper.service.js';
import { PurchaseCallbackClaims } from './verification/purchase-callback-claims.service.js';
import { PurchaseCheckClaims } from './verification/purchase-check-claims.service.js';
import { PurchaseProviderLookup } from './verification/purchase-provider-lookup.js';
import { PurchaseVerificationService } from './verification/purchase-verification.service.js';

/**
 * The purchase work of the reconciliation worker: submission (claimed from PostgreSQL by
 * PurchaseSubmissionClaims), verification (due checks and callback markers claimed by
 * PurchaseCheckClaims and PurchaseCallbackClaims; staff's requests as jobs), and the sweeper. The
 * BullMQ handlers that deliver `purchase.submit` and `purchase.verify` to PurchaseSubmissionService and
 * PurchaseVerificationService live in the worker app (apps/reconciliation-worker/src/purchase).
 */
@Module({
  imports: [PurchaseDomainModule, WorkerQueuesModule, ReconciliationModule],
  providers: [PurchaseTimings, PurchaseProviderLookup, PurchaseOutcomesService, PurchaseSubmissionService, PurchaseSubmissionClaims, PurchaseVerificationService, PurchaseCheckClaims, PurchaseCallbackClaims, PurchaseSweeperService],
  exports: [PurchaseSweeperService, PurchaseSubmissionClaims, PurchaseCheckClaims, PurchaseCallbackClaims, PurchaseOutcomesService, PurchaseSubmissionService, PurchaseVerificationService],
})
export class PurchaseWorkerModule {}
