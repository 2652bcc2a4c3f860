import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FieldEncryption } from '#common';
import { enqueueInTransaction } from '#queues';
import { formatCents } from '#money';
import { ProviderRejectedError, type PayoutProviderPayment } from '#providers';
import { VendorService } from '#auth';
import { recipientContext, type PayoutRecord } from '../payouts/payout-record.js';
import type { StoredRecipient } from '../payouts/payout-request.js';
import { PayoutRepository } from '../payouts/payout.repository.js';
import { PayoutOutcomes } from './payout-outcomes.js';
import { PayoutPollSchedule } from './payout-poll-schedule.js';
import { PayoutRails } from './payout-rails.js';
import { updateReturning } from '../persistence/update-returning.js';

/** BullMQ refuses `:` in custom job ids, hence the dots. */
export const pollJobId = (payoutId: string, link: number) => `payout-poll.${payoutId}.${link}`;
export const batchItemJobId = (payoutId: string) => `payout-batch-item.${payoutId}`;

/**
 * Phases 2 and 3 of a payout (Brandur Leach's atomic phases): the provider call, made only after
 * the payout, its hold, the submission marker and its first status poll were committed; then the
 * answer applied in its own transaction. A payout whose marker is already set is never sent
 * again: its outcome is looked up by merchant reference instead.
 */
@Injectable()
export class PayoutSubmitter {
  private readonly logger = new Logger(PayoutSubmitter.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly rails: PayoutRails,
    private readonly outcomes: PayoutOutcomes,
    private readonly payouts: PayoutRepository,
    private readonly encryption: FieldEncryption,
    private readonly vendors: VendorService,
    private readonly schedule: PayoutPollSchedule,
  ) {}

  /** Phase 2 + 3 for a payout whose marker this caller set. */
  async submitAndRecord(payout: PayoutRecord): Promise<void> {
    let payment: PayoutProviderPayment;
    try {
      const recipient = this.encryption.decryptJson<StoredRecipient>(payout.recipientEncrypted, recipientContext(payout.id));
      const vendorSlug = (await this.vendors.get(payout.vendorId)).slug;
      payment = await this.rails.submit({
        method: payout.method,
        merchantReference: payout.merchantReference,
        amount: formatCents(payout.amountCents),
        recipient,
        vendorSlug,
      });
    } catch (error) {
      if (error instanceof ProviderRejectedError && !error.outcomeUnknown && error.status !== 429) {
        this.logger.warn({ payoutId: payout.id, status: error.status, providerCode: error.providerCode }, 'Provider refused the payout request');
        await this.outcomes.recordRefused(payout.id);
      } else {
        // Timeout, network failure, 5xx, 409 or anything unexpected: the provider may have acted, so only a lookup decides.
        this.logger.warn({ payoutId: payout.id, err: (error as Error).message }, 'Payout submission unanswered; status polls will resolve it');
        await this.outcomes.recordUnanswered(payout.id);
      }
      return;
    }
    await this.outcomes.applyProviderPayment(payout.id, payment, true);
  }

  /**
   * For a batch item: sets the submission marker and schedules the first status poll in one
   * transaction. True when this caller set it (and must submit); false when it was set before
   * (a retried or duplicated job), in which case the caller must not submit.
   */
  async claimSubmission(payoutId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const now = new Date();
      const firstPoll = this.schedule.firstPollAt(now);
      const claimed = await updateReturning<unknown>(
        manager,
        `UPDATE payouts SET submission_started_at = $2, status_reason = 'submitting', poll_count = 0, next_poll_at = $3, updated_at = now()
          WHERE id = $1 AND status = 'pending' AND submission_started_at IS NULL RETURNING id`,
        [payoutId, now, firstPoll],
      );
      if (claimed.length === 0) return false;
      await enqueueInTransaction(manager, 'payout.poll-status', pollJobId(payoutId, 0), { payoutId }, firstPoll);
      return true;
    });
  }

  /** A payout whose submission may have happened: look it up and apply what the provider says. */
  async lookUpAndRecord(payout: PayoutRecord): Promise<PayoutRecord | null> {
    const payment = await this.rails.lookup(payout.method, payout.merchantReference);
    return this.outcomes.applyProviderPayment(payout.id, payment, false);
  }

  async reload(payoutId: string): Promise<PayoutRecord | null> {
    return this.payouts.findForWorker(payoutId);
  }
}
