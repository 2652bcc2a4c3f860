import { Injectable } from '@nestjs/common';
import type { PayoutStatus } from '../model/payout-status.js';
import { PayoutRepository } from '../persistence/payout.repository.js';
import { PayoutOutcomesService } from '../outcomes/payout-outcomes.service.js';
import { PayoutSubmissionService } from '../submission/payout-submission.service.js';

/** What staff do with payouts (ops CLI); only a provider lookup ever decides an outcome. */
@Injectable()
export class PayoutOperationsService {
  constructor(
    private readonly payouts: PayoutRepository,
    private readonly submitter: PayoutSubmissionService,
    private readonly outcomes: PayoutOutcomesService,
  ) {}

  /** Looks a pending or needs_review payout up at its provider and applies a final answer if there is one. */
  async recheck(vendorId: string, reference: string): Promise<{ reference: string; status: PayoutStatus }> {
    const payout = await this.payouts.requireByReference(vendorId, reference);
    if (payout.submissionStartedAt === null) return { reference, status: payout.status };
    const updated = await this.submitter.lookUpAndRecord(payout);
    return { reference, status: updated?.status ?? payout.status };
  }

  /** Cancels a pending payout that was never handed to a provider (a waiting batch item) and releases its hold. */
  async cancel(vendorId: string, reference: string): Promise<{ reference: string; cancelled: boolean }> {
    const payout = await this.payouts.requireByReference(vendorId, reference);
    return { reference, cancelled: await this.outcomes.cancelUnsubmitted(payout.id) };
  }
}
