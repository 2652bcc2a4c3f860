import { Injectable, Logger } from '@nestjs/common';
import { FieldEncryption } from '#common';
import { formatCents } from '#money';
import { ProviderRejectedError, type PayoutProviderPayment } from '#providers';
import { VendorService } from '#auth';
import { recipientContext, type PayoutRecord } from '../model/payout-record.js';
import type { StoredRecipient } from '../model/payout-request.js';
import { PayoutRepository } from '../persistence/payout.repository.js';
import { PayoutWorkRepository } from '../persistence/payout-work.repository.js';
import { PAYOUT_ID_PATTERN } from '../model/payout-record.js';
import { methodDefinition } from '../model/payout-method-catalogue.js';
import { providerErrorEvidence, type SubmissionFollowUp, type SubmissionVerdict } from '../model/payout-outcome.js';
import { PayoutOutcomesService } from '../outcomes/payout-outcomes.service.js';
import { PayoutPollSchedule } from '../model/payout-poll-schedule.js';
import { PayoutRails } from '../provider/payout-rails.js';

/**
 * Phases 2 and 3 of a payout (Brandur Leach's atomic phases): the provider call, made only after
 * the payout, its hold, the submission marker and its first status poll were committed; then the
 * answer applied in its own transaction. A payout whose marker is already set is never sent
 * again: its outcome is looked up by merchant reference instead.
 */
@Injectable()
export class PayoutSubmissionService {
  private readonly logger = new Logger(PayoutSubmissionService.name);

  constructor(
    private readonly payouts: PayoutRepository,
    private readonly work: PayoutWorkRepository,
    private readonly rails: PayoutRails,
    private readonly outcomes: PayoutOutcomesService,
    private readonly encryption: FieldEncryption,
    private readonly vendors: VendorService,
    private readonly schedule: PayoutPollSchedule,
  ) {}

  /**
   * Phase 2 + 3 for a payout whose marker this caller set. Answers the payout as phase 3 left it.
   * For a single payout's request, a "paid" answer is recorded in one statement together with
   * `followUp` (see PayoutOutcomesService.applySubmissionPayment); the verdict says whether it was, else
   * the caller writes the follow-up itself.
   */
  async submitAndRecord(payout: PayoutRecord, followUp: SubmissionFollowUp | null = null): Promise<SubmissionVerdict> {
    const unfollowed = async (recorded: Promise<PayoutRecord | null>): Promise<SubmissionVerdict> => ({ payout: await recorded, followedUp: false });
    // A claim older than one provider timeout is not sent (the process stalled between commit and
    // call): status polls rely on every call starting within that bound when they count a "not
    // found" as proof that the provider never received the payout.
    const claimedFor = Date.now() - (payout.submissionStartedAt?.getTime() ?? 0);
    if (payout.submissionStartedAt === null || claimedFor > this.schedule.submitWithinMs) {
      this.logger.warn({ payoutId: payout.id, claimedFor }, 'Submission claim too old to send; status polls will resolve it');
      return unfollowed(this.outcomes.recordUnanswered(payout.id, { outcome: 'not_sent', summary: `not sent: claimed ${claimedFor} ms earlier` }));
    }
    let payment: PayoutProviderPayment;
    try {
      const recipient = this.encryption.decryptJson<StoredRecipient>(payout.recipientEncrypted, recipientContext(payout.id));
      payment = await this.rails.submit({
        method: payout.method,
        merchantReference: payout.merchantReference,
        amount: formatCents(payout.amountCents),
        recipient,
        // Only voucher requests carry the vendor slug; the other rails need no vendor read.
        vendorSlug: methodDefinition(payout.method).kind === 'voucher' ? (await this.vendors.get(payout.vendorId)).slug : undefined,
      });
    } catch (error) {
      if (error instanceof ProviderRejectedError && !error.outcomeUnknown && error.status !== 429) {
        this.logger.warn({ payoutId: payout.id, status: error.status, providerCode: error.providerCode }, 'Provider refused the payout request');
        return unfollowed(this.outcomes.recordRefused(payout.id, { httpStatus: error.status, summary: `refused: ${error.providerCode ?? 'no provider code'}` }));
      }
      // Timeout, network failure, 5xx, 409 or anything unexpected: the provider may have acted, so only a lookup decides.
      this.logger.warn({ payoutId: payout.id, err: (error as Error).message }, 'Payout submission unanswered; status polls will resolve it');
      return unfollowed(this.outcomes.recordUnanswered(payout.id, providerErrorEvidence(error)));
    }
    return this.outcomes.applySubmissionPayment(payout, payment, followUp);
  }

  /**
   * For a batch item: sets the submission marker and schedules the first status poll (its outbox
   * row) in one statement, so both commit together. True when this caller set it (and must
   * submit); false when it was set before (a retried or duplicated job), in which case the
   * caller must not submit.
   */
  async claimSubmission(payoutId: string): Promise<boolean> {
    return (await this.claimForSubmission(payoutId)) !== null;
  }

  /** As claimSubmission, answering the claimed payout (null when not claimed, or unknown). */
  async claimForSubmission(payoutId: string): Promise<PayoutRecord | null> {
    if (!PAYOUT_ID_PATTERN.test(payoutId)) return null;
    const now = new Date();
    const firstPoll = this.schedule.firstPollAt(now);
    return this.work.claimSubmission(payoutId, now, firstPoll);
  }

  /** The payout a job names; null for an id this database does not hold. */
  payoutForJob(payoutId: string): Promise<PayoutRecord | null> {
    return this.payouts.findForWorker(payoutId);
  }

  /** A payout whose submission may have happened: look it up and apply what the provider says. */
  async lookUpAndRecord(payout: PayoutRecord): Promise<PayoutRecord | null> {
    const payment = await this.rails.lookup(payout.method, payout.merchantReference);
    return this.outcomes.applyProviderPayment(payout.id, payment, false);
  }
}
