import { Module } from '@nestjs/common';
import { WorkerQueuesModule } from '#queues';
import { ReconciliationModule } from '#reconciliation';
import { PurchaseTimings } from './model/purchase-timings.js';
import { PurchaseOutcomeRecorder } from './outcomes/purchase-outcome-recorder.js';
import { PurchaseDomainModule } from './purchase-domain.module.js';
import { PurchaseSubmission } from './submission/purchase-submission.js';
import { PurchaseSweeper } from './sweeper/purchase-sweeper.js';
import { PurchaseProviderLookup } from './verification/purchase-provider-lookup.js';
import { PurchaseVerification } from './verification/purchase-verification.js';
import { VerificationScheduler } from './verification/verification-scheduler.js';

/**
 * The purchase work of the reconciliation worker: submission, verification, and the sweeper. The
 * BullMQ handlers that deliver `purchase.submit` and `purchase.verify` to PurchaseSubmission and
 * PurchaseVerification live in the worker app (apps/reconciliation-worker/src/purchase).
 */
@Module({
  imports: [PurchaseDomainModule, WorkerQueuesModule, ReconciliationModule],
  providers: [PurchaseTimings, VerificationScheduler, PurchaseProviderLookup, PurchaseOutcomeRecorder, PurchaseSubmission, PurchaseVerification, PurchaseSweeper],
  exports: [PurchaseSweeper, PurchaseOutcomeRecorder, PurchaseSubmission, PurchaseVerification],
})
export class PurchaseWorkerModule {}
