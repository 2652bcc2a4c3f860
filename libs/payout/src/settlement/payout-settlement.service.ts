import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ClosedWithoutLine } from '#providers';
import type { PayoutMethod } from '../model/payout-method-catalogue.js';
import type { PayoutRecord } from '../model/payout-record.js';
import type { PayoutStatus } from '../model/payout-status.js';
import { PayoutEvidenceRepository } from '../persistence/payout-evidence.repository.js';
import { PayoutRepository } from '../persistence/payout.repository.js';

/**
 * What a provider's settlement report reads of payouts (libs/settlement): the payout a line
 * names, locked for the line's outcome (PayoutOutcomesService.applyToLocked), and the payouts
 * the report should have named but did not.
 */
@Injectable()
export class PayoutSettlementService {
  constructor(
    private readonly payouts: PayoutRepository,
    private readonly evidence: PayoutEvidenceRepository,
  ) {}

  /** The payout a line names by our merchant reference (id and method only; lockForLine locks it next). */
  findByMerchantReference(merchantReference: string): Promise<{ id: string; method: PayoutMethod } | null> {
    return this.payouts.findByMerchantReference(merchantReference);
  }

  /** The payout read `FOR UPDATE` in the caller's transaction, which applies the line under that lock. */
  lockForLine(manager: EntityManager, payoutId: string): Promise<PayoutRecord | null> {
    return this.payouts.findForWorker(payoutId, manager, true);
  }

  /** Payouts by one of `methods` paid (or reversed) in [from, to) that no line of the report names. */
  closedWithoutSettlementLine(reportId: string, from: Date, to: Date, methods: readonly PayoutMethod[]): Promise<ClosedWithoutLine<PayoutStatus>[]> {
    return this.evidence.closedWithoutSettlementLine(reportId, from, to, methods);
  }
}
