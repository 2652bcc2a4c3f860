import { Module } from '@nestjs/common';
import { WorkerQueuesModule } from '#queues';
import { ReconciliationModule } from '#reconciliation';
import { PayoutDomainModule } from '../payout-domain.module.js';
import { PayoutHoldRepository } from '../persistence/payout-hold.repository.js';
import { PayoutHoldWatchService } from '../sweeper/payout-hold-watch.service.js';
import { PayoutWorkSweepService } from '../sweeper/payout-work-sweep.service.js';

/**
 * The payout domain for the reconciliation worker: the services its job handlers call and the
 * sweeper that rebuilds lost jobs and raises a staff exception for holds past their bound. The handlers themselves live in apps/reconciliation-worker.
 */
@Module({
  imports: [PayoutDomainModule, WorkerQueuesModule, ReconciliationModule],
  providers: [PayoutWorkSweepService, PayoutHoldRepository, PayoutHoldWatchService],
  exports: [PayoutDomainModule, PayoutWorkSweepService, PayoutHoldWatchService],
})
export class PayoutWorkerModule {}
