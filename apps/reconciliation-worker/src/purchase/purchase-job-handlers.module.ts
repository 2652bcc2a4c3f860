import { Module } from '@nestjs/common';
import { PurchaseWorkerModule } from '#purchase';
import { WorkerQueuesModule } from '#queues';
import { SubmitPurchaseHandler, VerifyPurchaseHandler } from './purchase-job-handlers.js';

/** The purchase jobs' handlers; the work they call (and the sweeper) comes from the purchase lib's PurchaseWorkerModule. */
@Module({
  imports: [PurchaseWorkerModule, WorkerQueuesModule],
  providers: [SubmitPurchaseHandler, VerifyPurchaseHandler],
})
export class PurchaseJobHandlersModule {}
