import { ClaimLoopService, type ClaimLoopPace } from '#queues';
import { PurchaseTimings } from './model/purchase-timings.js';
import { TransactionWorkRepository } from './persistence/transaction-work.repository.js';

/**
 * What the worker's purchase claim loops share: their work is claimed from PostgreSQL
 * (TransactionWorkRepository), all at one pace and under one lease (PurchaseTimings.claimPace,
 * `claimLeaseMs`).
 */
export abstract class PurchaseClaimLoop extends ClaimLoopService {
  protected constructor(
    protected readonly work: TransactionWorkRepository,
    protected readonly timings: PurchaseTimings,
  ) {
    super();
  }

  protected pace(): ClaimLoopPace {
    return this.timings.claimPace;
  }

  /** How long a claim keeps its items from other rounds. */
  protected get leaseMs(): number {
    return this.timings.claimLeaseMs;
  }
}
