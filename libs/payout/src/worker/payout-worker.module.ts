import { Module } from '@nestjs/common';
import { WorkerQueuesModule } from '#queues';
import { ReconciliationModule } from '#reconciliation';
import { PayoutDomainModule } from '../payout-domain.module.js';
import { PayoutHoldRepository } from '../persistence/payout-hold.repository.js';
import { PayoutHoldWatch } from '../sweeper/payout-hold-watch.js';
import { PayoutWorkSweeper } from '../sweeper/payout-work-sweeper.js';

/**
 * The payout domain for the reconciliation worker: the services its job handlers call and the
 * sweeper that rebuilds lost jobs and raises a staff exception for holds past their bound. The handlers themselves live in apps/reconciliation-worker.
 */
@Module({
  imports: [PayoutDomainModule, WorkerQueuesModule, ReconciliationModule],
  providers: [PayoutWorkSweeper, PayoutHoldRepository, PayoutHoldWatch],
  exports: [PayoutDomainModule, PayoutWorkSweeper, PayoutHoldWatch],
})
export class PayoutWorkerModule {}
