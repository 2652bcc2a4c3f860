import { Module } from '@nestjs/common';
import { PayoutWorkerModule } from '#payout';
import { WorkerQueuesModule } from '#queues';
import { BatchItemJobHandler, PollStatusJobHandler } from './payout-job-handlers.js';

/** The payout jobs' handlers (batch items, status polls); the work they call (and the sweeper) comes from the payout lib's PayoutWorkerModule. */
@Module({
  imports: [PayoutWorkerModule, WorkerQueuesModule],
  providers: [BatchItemJobHandler, PollStatusJobHandler],
})
export class PayoutJobHandlersModule {}
