import { Module } from '@nestjs/common';
import { WorkerQueuesModule } from '#queues';
import { ReconciliationModule } from '#reconciliation';
import { PurchaseDomainModule } from '../purchase-domain.module.js';
import { PurchaseOutcomeRecorder } from './purchase-outcome-recorder.js';
import { PurchaseProviderLookup } from './purchase-provider-lookup.js';
import { PurchaseSweeper } from './purchase-sweeper.js';
import { PurchaseTimings } from './purchase-timings.js';
import { SubmitPurchaseHandler } from './submit-purchase.handler.js';
import { VerificationScheduler } from './verification-scheduler.js';
import { VerifyPurchaseHandler } from './verify-purchase.handler.js';

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
