import { Module } from '@nestjs/common';
import { WorkerQueuesModule } from '#queues';
import { PayoutDomainModule, PayoutWorkSweeper } from '#payout';
import { BatchItemJobHandler, PollStatusJobHandler } from './payout-job-handlers.js';

/** The payout side of the reconciliation worker: batch items, status polls, and the sweeper that rebuilds lost jobs. */
@Module({
  imports: [PayoutDomainModule, WorkerQueuesModule],
  providers: [BatchItemJobHandler, PollStatusJobHandler, PayoutWorkSweeper],
  exports: [PayoutWorkSweeper],
})
export class PayoutWorkerModule {}
