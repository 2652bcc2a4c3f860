import { Injectable } from '@nestjs/common';
import { PurchaseTimings } from '../model/purchase-timings.js';
import { TransactionWorkRepository } from '../persistence/transaction-work.repository.js';
import { PurchaseClaimLoop } from '../purchase-claim-loop.js';
import { PurchaseVerificationService } from './purchase-verification.service.js';

/**
 * The claim loops whose work is a verification (due checks, callback markers). Nest gives each
 * loop these dependencies through this constructor (a loop declares none of its own).
 */
@Injectable()
export abstract class PurchaseVerificationClaimLoop extends PurchaseClaimLoop {
  constructor(
    work: TransactionWorkRepository,
    timings: PurchaseTimings,
    protected readonly verification: PurchaseVerificationService,
  ) {
    super(work, timings);
  }
}
