import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { textRuleProblem, UUID_PATTERN, ValidationFailedError } from '#common';
import { PayoutOutcomesService, PayoutReviewService } from '#payout';
import { PurchaseOutcomesService, PurchaseReviewService } from '#purchase';
import { OPERATOR_PROPOSED, ProposalKinds } from '../four-eyes/proposal-kinds.js';
import { StaffActionRefused } from '../model/errors.js';
import { ManualResolutionRepository } from '../persistence/manual-resolution.repository.js';

function outcomeOf(params: Record<string, unknown>, allowed: readonly string[]): string {
  const outcome = params.outcome;
  if (typeof outcome !== 'string' || !allowed.includes(outcome)) throw new ValidationFailedError({ outcome: [`Choose ${allowed.join(' or ')}.`] });
  return outcome;
}

export const VENDOR_MESSAGE_MAX_LENGTH = 300;

/**
 * The message for the vendor a purchase resolution may carry (null: the standard one). Kept apart
 * from the proposal's reason, which is the staff's internal note and never reaches the vendor.
 */
function vendorMessageOf(params: Record<string, unknown>): string | null {
  const written = typeof params.vendor_message === 'string' ? params.vendor_message.trim() : '';
  if (written === '') return null;
  const problem = textRuleProblem(written);
  if (problem) throw new ValidationFailedError({ vendor_message: [`The message to the vendor ${problem}.`] });
  if (written.length > VENDOR_MESSAGE_MAX_LENGTH) throw new ValidationFailedError({ vendor_message: [`Keep the message to the vendor to ${VENDOR_MESSAGE_MAX_LENGTH} characters.`] });
  return written;
}

/**
 * Manual resolution of review items, when the provider cannot be asked: an operator or approver
 * proposes (with the reason), another approver approves, and the approval moves the item
 * through its domain's own outcome code, the code verified provider answers use, in the
 * approval's transaction, with a staff_manual_resolutions row (unique per item: money moves once).
 */
@Injectable()
export class ReviewProposalKinds implements OnModuleInit {
  constructor(
    private readonly kinds: ProposalKinds,
    private readonly purchaseReview: PurchaseReviewService,
    private readonly recorder: PurchaseOutcomesService,
    private readonly payoutReview: PayoutReviewService,
    private readonly payoutOutcomes: PayoutOutcomesService,
    private readonly resolutions: ManualResolutionRepository,
  ) {}

  onModuleInit(): void {
    this.kinds.register({
      kind: 'purchase.resolve',
      auditAction: 'purchase.resolved',
      ...OPERATOR_PROPOSED,
      prepare: async (manager: EntityManager, subjectId: string, params: Record<string, unknown>) => {
        const outcome = outcomeOf(params, ['completed', 'failed']);
        const item = UUID_PATTERN.test(subjectId) ? await this.purchaseReview.item(subjectId, manager) : undefined;
        if (!item) throw new ValidationFailedError({ purchase: ['Unknown purchase.'] });
        if (item.status !== 'review') throw new StaffActionRefused(`The purchase is ${item.status}, not in review.`);
        const vendorMessage = vendorMessageOf(params);
        return { subjectType: 'purchase', subjectId: item.id, vendorId: item.vendorId, params: { outcome, reference: item.reference, charge_cents: item.chargeCents.toString(), vendor_message: vendorMessage } };
      },
      execute: async (manager, proposal) => {
        const outcome = outcomeOf(proposal.params, ['completed', 'failed']) as 'completed' | 'failed';
        const result = await this.recorder.resolveByStaff(manager, proposal.subjectId, outcome, vendorMessageOf(proposal.params));
        if (!result.resolved) throw new StaffActionRefused(result.reason);
        await this.resolutions.insert(manager, { domain: 'purchase', itemId: proposal.subjectId, vendorId: result.record.vendorId, outcome, proposalId: proposal.id });
        return { details: { outcome, reference: proposal.params.reference, charge_cents: result.record.chargeCents.toString(), allowance_returned: outcome === 'failed' } };
      },
      describe: (proposal) => `Resolve purchase ${String(proposal.params.reference)} as ${String(proposal.params.outcome)}`,
    });

    this.kinds.register({
      kind: 'payout.resolve',
      auditAction: 'payout.resolved',
      ...OPERATOR_PROPOSED,
      prepare: async (_manager, subjectId, params) => {
        const outcome = outcomeOf(params, ['paid', 'failed']);
        const item = UUID_PATTERN.test(subjectId) ? await this.payoutReview.item(subjectId) : null;
        if (!item) throw new ValidationFailedError({ payout: ['Unknown payout.'] });
        if (item.status !== 'needs_review') throw new StaffActionRefused(`The payout is ${item.status}, not in needs_review.`);
        return { subjectType: 'payout', subjectId: item.id, vendorId: item.vendorId, params: { outcome, reference: item.reference, hold_cents: String(item.amountCents + item.feeCents) } };
      },
      execute: async (manager, proposal) => {
        const outcome = outcomeOf(proposal.params, ['paid', 'failed']) as 'paid' | 'failed';
        const result = await this.payoutOutcomes.resolveByStaff(manager, proposal.subjectId, outcome);
        if (!result.resolved) throw new StaffActionRefused(result.reason);
        await this.resolutions.insert(manager, { domain: 'payout', itemId: proposal.subjectId, vendorId: result.payout.vendorId, outcome, proposalId: proposal.id });
        const hold = String(result.payout.amountCents + result.payout.feeCents);
        return { details: { outcome, reference: proposal.params.reference, hold_cents: hold, ledger: outcome === 'paid' ? 'settle' : 'release' } };
      },
      describe: (proposal) => `Resolve payout ${String(proposal.params.reference)} as ${String(proposal.params.outcome)}`,
    });
  }
}
