import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { FieldEncryption } from '#common';
import type { PayoutDelivery, PayoutProviderPayment } from '#providers';
import { PayoutLedger } from '../ledger/payout-ledger.js';
import { deliveryContext, holdOf, type PayoutRecord } from '../payouts/payout-record.js';
import { PayoutRepository } from '../payouts/payout.repository.js';
import { updateReturning } from '../persistence/update-returning.js';

/** The delivery as stored (encrypted) and served. */
export interface StoredDelivery {
  pin: string | null;
  serial: string | null;
  instructions: string | null;
  expires_at: string | null;
}

/**
 * Every status change of a payout, each in one transaction with its ledger movement and guarded
 * by the current status, so a submission answer and a status poll racing on the same payout
 * apply a verdict once:
 *   pending → paid (settle) | failed (release) | reversed (settle + reverse) | needs_review
 *   needs_review → paid | failed | reversed (a late answer, or staff)
 *   paid → reversed (reverse)
 *   pending, not yet submitted → cancelled (release)
 */
@Injectable()
export class PayoutOutcomes {
  private readonly logger = new Logger(PayoutOutcomes.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: PayoutLedger,
    private readonly payouts: PayoutRepository,
    private readonly encryption: FieldEncryption,
  ) {}

  /** Applies what the provider says about the payout (from a submission answer or a status lookup). */
  async applyProviderPayment(payoutId: string, payment: PayoutProviderPayment, fromSubmission: boolean): Promise<PayoutRecord | null> {
    return this.dataSource.transaction((manager) => this.applyProviderPaymentIn(manager, payoutId, payment, fromSubmission));
  }

  async applyProviderPaymentIn(manager: EntityManager, payoutId: string, payment: PayoutProviderPayment, fromSubmission: boolean): Promise<PayoutRecord | null> {
    const payout = await this.payouts.findForWorker(payoutId, manager, true);
    if (!payout) return null;
    if (fromSubmission) await this.markAnswered(manager, payout.id);
    await manager.query(`UPDATE payouts SET last_checked_at = now(), provider_reference = COALESCE(provider_reference, $2) WHERE id = $1`, [
      payout.id,
      payment.providerReference,
    ]);
    const open = payout.status === 'pending' || payout.status === 'needs_review';
    switch (payment.outcome) {
      case 'paid':
        if (open) await this.markPaid(manager, payout, payment);
        else if (payout.status === 'paid' && payout.deliveryEncrypted === null && payment.delivery) await this.storeDelivery(manager, payout.id, payment.delivery.reveal());
        else if (payout.status !== 'paid') this.logger.error({ payoutId, status: payout.status }, 'Provider says paid for a payout already closed otherwise; needs staff');
        break;
      case 'rejected':
        if (open) await this.markFailed(manager, payout, 'provider_rejected');
        else if (payout.status !== 'failed') this.logger.error({ payoutId, status: payout.status }, 'Provider says rejected for a payout already closed otherwise; needs staff');
        break;
      case 'reversed':
        if (open) {
          // It was paid and reversed before we heard of the payment: both movements, so the books tell what happened.
          await this.markPaid(manager, payout, payment);
          await this.markReversed(manager, { ...payout, status: 'paid' }, payment.reversedAt);
        } else if (payout.status === 'paid') {
          await this.markReversed(manager, payout, payment.reversedAt);
        }
        break;
      case 'pending':
        if (payout.status === 'pending') await manager.query(`UPDATE payouts SET status_reason = 'awaiting_provider', updated_at = now() WHERE id = $1`, [payout.id]);
        break;
      case 'unknown':
        // Not found, or a status we do not recognise: never a verdict. Polling decides.
        if (payout.status === 'pending' && fromSubmission) {
          await manager.query(`UPDATE payouts SET status_reason = 'awaiting_provider', updated_at = now() WHERE id = $1`, [payout.id]);
        }
        break;
    }
    return this.payouts.findForWorker(payoutId, manager);
  }

  /** The submission got no usable answer (timeout, network, 5xx, 409): the outcome is unknown and polling resolves it. */
  async recordUnanswered(payoutId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE payouts SET submission_answered_at = COALESCE(submission_answered_at, now()),
              status_reason = CASE WHEN status = 'pending' THEN 'awaiting_provider' ELSE status_reason END, updated_at = now()
        WHERE id = $1`,
      [payoutId],
    );
  }

  /** The provider refused the request itself (a 4xx): nothing was paid, so the hold is released. */
  async recordRefused(payoutId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const payout = await this.payouts.findForWorker(payoutId, manager, true);
      if (!payout) return;
      await this.markAnswered(manager, payout.id);
      if (payout.status === 'pending') await this.markFailed(manager, payout, 'provider_rejected');
    });
  }

  /** The outcome never became known: the hold stays reserved until staff resolve it. */
  async markNeedsReviewIn(manager: EntityManager, payout: PayoutRecord): Promise<void> {
    await manager.query(
      `UPDATE payouts SET status = 'needs_review', status_reason = 'outcome_unknown', review_at = now(), next_poll_at = NULL, updated_at = now()
        WHERE id = $1 AND status = 'pending'`,
      [payout.id],
    );
  }

  /** Operations: a payout not yet handed to a provider (a waiting batch item) is cancelled and its hold released. */
  async cancelUnsubmitted(payoutId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.payouts.findForWorker(payoutId, manager, true);
      if (!payout || payout.status !== 'pending' || payout.submissionStartedAt !== null) return false;
      await manager.query(
        `UPDATE payouts SET status = 'cancelled', status_reason = 'cancelled_by_operations', next_poll_at = NULL, updated_at = now() WHERE id = $1`,
        [payout.id],
      );
      await this.ledger.release(manager, payout.vendorId, holdOf(payout));
      return true;
    });
  }

  private async markAnswered(manager: EntityManager, payoutId: string): Promise<void> {
    await manager.query(`UPDATE payouts SET submission_answered_at = COALESCE(submission_answered_at, now()) WHERE id = $1`, [payoutId]);
  }

  private async markPaid(manager: EntityManager, payout: PayoutRecord, payment: PayoutProviderPayment): Promise<void> {
    const paidAt = validDate(payment.paidAt) ?? new Date();
    const updated = await updateReturning<unknown>(
      manager,
      `UPDATE payouts SET status = 'paid', status_reason = NULL, paid_at = $2, review_at = NULL, updated_at = now()
        WHERE id = $1 AND status IN ('pending', 'needs_review') RETURNING id`,
      [payout.id, paidAt],
    );
    if (updated.length === 0) return;
    await this.ledger.settle(manager, payout.vendorId, holdOf(payout));
    if (payment.delivery) await this.storeDelivery(manager, payout.id, payment.delivery.reveal());
  }

  private async markFailed(manager: EntityManager, payout: PayoutRecord, reason: 'provider_rejected'): Promise<void> {
    const updated = await updateReturning<unknown>(
      manager,
      `UPDATE payouts SET status = 'failed', status_reason = $2, failed_at = now(), next_poll_at = NULL, updated_at = now()
        WHERE id = $1 AND status IN ('pending', 'needs_review') RETURNING id`,
      [payout.id, reason],
    );
    if (updated.length > 0) await this.ledger.release(manager, payout.vendorId, holdOf(payout));
  }

  private async markReversed(manager: EntityManager, payout: PayoutRecord, reversedAt: string | null): Promise<void> {
    const updated = await updateReturning<unknown>(
      manager,
      `UPDATE payouts SET status = 'reversed', status_reason = 'reversed_by_provider', reversed_at = $2, next_poll_at = NULL, updated_at = now()
        WHERE id = $1 AND status = 'paid' RETURNING id`,
      [payout.id, validDate(reversedAt) ?? new Date()],
    );
    if (updated.length > 0) await this.ledger.reverse(manager, payout.vendorId, holdOf(payout));
  }

  private async storeDelivery(manager: EntityManager, payoutId: string, delivery: PayoutDelivery): Promise<void> {
    const stored: StoredDelivery = { pin: delivery.pin, serial: delivery.serial, instructions: delivery.instructions, expires_at: delivery.expiresAt };
    await manager.query(`UPDATE payouts SET delivery_encrypted = $2 WHERE id = $1`, [payoutId, this.encryption.encryptJson(stored, deliveryContext(payoutId))]);
  }
}

function validDate(value: string | null): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
