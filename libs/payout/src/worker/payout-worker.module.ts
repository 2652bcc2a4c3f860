import { Module } from '@nestjs/common';
import { WorkerQueuesModule } from '#queues';
import { PayoutDomainModule } from '../payout-domain.module.js';
import { PayoutWorkSweeper } from '../sweeper/payout-work-sweeper.js';

/**
 * The payout domain for the reconciliation worker: the services its job handlers call and the
 * sweeper that rebuilds lost jobs. The handlers themselves live in apps/reconciliation-worker.
 */
@Module({
  imports: [PayoutDomainModule, WorkerQueuesModule],
  providers: [PayoutWorkSweeper],
  exports: [PayoutDomainModule, PayoutWorkSweeper],
})
export class PayoutWorkerModule {}
