import { Module } from '@nestjs/common';
import { WorkerQueuesModule } from '#queues';
import { ReconciliationModule } from '#reconciliation';
import { PurchaseDomainModule } from './purchase-domain.module.js';
import { PurchaseOutcomeRecorder } from './outcomes/purchase-outcome-recorder.js';
import { PurchaseProviderLookup } from './verification/purchase-provider-lookup.js';
import { PurchaseSweeper } from './sweeper/purchase-sweeper.js';
import { PurchaseTimings } from './model/purchase-timings.js';
import { SubmitPurchaseHandler } from './submission/submit-purchase.handler.js';
import { VerificationScheduler } from './verification/verification-scheduler.js';
import { VerifyPurchaseHandler } from './verification/verify-purchase.handler.js';

/** The purchase jobs of the reconciliation worker: submission, verification, and the sweeper. */
@Module({
  imports: [PurchaseDomainModule, WorkerQueuesModule, ReconciliationModule],
  providers: [
    PurchaseTimings,
    VerificationScheduler,
    PurchaseProviderLookup,
    PurchaseOutcomeRecorder,
    SubmitPurchaseHandler,
    VerifyPurchaseHandler,
    PurchaseSweeper,
  ],
  exports: [PurchaseSweeper, PurchaseOutcomeRecorder],
})
export class PurchaseWorkerModule {}
