import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { FieldEncryption } from '#common';
import type { PayoutDelivery, PayoutProviderPayment } from '#providers';
import { PayoutLedger } from '../ledger/payout-ledger.js';
import { deliveryContext, holdOf, PAYOUT_COLUMNS, payoutRecordOf, type PayoutRecord, type PayoutRow } from '../payouts/payout-record.js';
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

  /**
   * Under the payout's row lock: the contact (answered, last checked, provider reference) and the
   * verdict are written together, and the ledger movement comes last (it locks the vendor's
   * account row until commit). Returns the payout as it now stands.
   */
  async applyProviderPaymentIn(manager: EntityManager, payoutId: string, payment: PayoutProviderPayment, fromSubmission: boolean): Promise<PayoutRecord | null> {
    const payout = await this.payouts.findForWorker(payoutId, manager, true);
    return payout ? this.applyToLocked(manager, payout, payment, fromSubmission) : null;
  }

  /** As applyProviderPaymentIn, for a payout the caller has just read `FOR UPDATE` in this transaction. */
  async applyToLocked(manager: EntityManager, payout: PayoutRecord, payment: PayoutProviderPayment, fromSubmission: boolean): Promise<PayoutRecord> {
    const payoutId = payout.id;
    const contact: ProviderContact = { fromSubmission, providerReference: payment.providerReference };
    const open = payout.status === 'pending' || payout.status === 'needs_review';
    if (open && (payment.outcome === 'paid' || payment.outcome === 'reversed')) {
      const paid = await this.markPaid(manager, payout, payment, contact);
      if (payment.outcome === 'paid') return paid;
      // It was paid and reversed before we heard of the payment: both movements, so the books tell what happened.
      await this.markReversed(manager, paid, payment.reversedAt);
      return (await this.payouts.findForWorker(payoutId, manager))!;
    }
    const contacted = await this.recordContact(manager, payout, contact);
    switch (payment.outcome) {
      case 'paid':
        if (payout.status === 'paid' && payout.deliveryEncrypted === null && payment.delivery) await this.storeDelivery(manager, payout.id, payment.delivery.reveal());
        else if (payout.status !== 'paid') this.logger.error({ payoutId, status: payout.status }, 'Provider says paid for a payout already closed otherwise; needs staff');
        else return contacted;
        break;
      case 'rejected':
        if (open) await this.markFailed(manager, payout, 'provider_rejected');
        else if (payout.status !== 'failed') this.logger.error({ payoutId, status: payout.status }, 'Provider says rejected for a payout already closed otherwise; needs staff');
        else return contacted;
        break;
      case 'reversed':
        if (payout.status !== 'paid') return contacted;
        await this.markReversed(manager, payout, payment.reversedAt);
        break;
      case 'pending':
        if (payout.status !== 'pending') return contacted;
        await manager.query(`UPDATE payouts SET status_reason = 'awaiting_provider', updated_at = now() WHERE id = $1`, [payout.id]);
        break;
      case 'unknown':
        // Not found, or a status we do not recognise: never a verdict. Polling decides.
        if (payout.status !== 'pending' || !fromSubmission) return contacted;
        await manager.query(`UPDATE payouts SET status_reason = 'awaiting_provider', updated_at = now() WHERE id = $1`, [payout.id]);
        break;
    }
    return (await this.payouts.findForWorker(payoutId, manager))!;
  }

  /** The submission got no usable answer (timeout, network, 5xx, 409): the outcome is unknown and polling resolves it. */
  async recordUnanswered(payoutId: string): Promise<PayoutRecord | null> {
    const rows = await updateReturning<PayoutRow>(
      this.dataSource.manager,
      `UPDATE payouts SET submission_answered_at = COALESCE(submission_answered_at, now()),
              status_reason = CASE WHEN status = 'pending' THEN 'awaiting_provider' ELSE status_reason END, updated_at = now()
        WHERE id = $1 RETURNING ${PAYOUT_COLUMNS}`,
      [payoutId],
    );
    return rows.length > 0 ? payoutRecordOf(rows[0]) : null;
  }

  /** The provider refused the request itself (a 4xx): nothing was paid, so the hold is released. */
  async recordRefused(payoutId: string): Promise<PayoutRecord | null> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.payouts.findForWorker(payoutId, manager, true);
      if (!payout) return null;
      await this.markAnswered(manager, payout.id);
      if (payout.status === 'pending') await this.markFailed(manager, payout, 'provider_rejected');
      return this.payouts.findForWorker(payoutId, manager);
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

  /**
   * The contact without a change of status. Returns the payout with what this wrote, read back
   * from RETURNING (the lock is held, so nothing else changed it).
   */
  private async recordContact(manager: EntityManager, payout: PayoutRecord, contact: ProviderContact): Promise<PayoutRecord> {
    const rows = await updateReturning<Pick<PayoutRow, 'provider_reference' | 'submission_answered_at'>>(
      manager,
      `UPDATE payouts SET last_checked_at = now(), provider_reference = COALESCE(provider_reference, $2),
              submission_answered_at = CASE WHEN $3 THEN COALESCE(submission_answered_at, now()) ELSE submission_answered_at END
        WHERE id = $1 RETURNING provider_reference, submission_answered_at`,
      [payout.id, contact.providerReference, contact.fromSubmission],
    );
    return { ...payout, providerReference: rows[0].provider_reference, submissionAnsweredAt: rows[0].submission_answered_at };
  }

  /** Contact, status and delivery in one statement, then the settlement (last: it locks the account row). */
  private async markPaid(manager: EntityManager, payout: PayoutRecord, payment: PayoutProviderPayment, contact: ProviderContact): Promise<PayoutRecord> {
    const paidAt = validDate(payment.paidAt) ?? new Date();
    const delivery = payment.delivery ? this.encryptDelivery(payout.id, payment.delivery.reveal()) : null;
    const updated = await updateReturning<PayoutRow>(
      manager,
      `UPDATE payouts SET status = 'paid', status_reason = NULL, paid_at = $2, review_at = NULL, updated_at = now(),
              last_checked_at = now(), provider_reference = COALESCE(provider_reference, $3),
              submission_answered_at = CASE WHEN $4 THEN COALESCE(submission_answered_at, now()) ELSE submission_answered_at END,
              delivery_encrypted = COALESCE($5, delivery_encrypted)
        WHERE id = $1 AND status IN ('pending', 'needs_review') RETURNING ${PAYOUT_COLUMNS}`,
      [payout.id, paidAt, contact.providerReference, contact.fromSubmission, delivery],
    );
    // Unreachable under the row lock (the caller saw it open); kept so a change elsewhere cannot settle twice.
    if (updated.length === 0) return this.recordContact(manager, payout, contact);
    await this.ledger.settle(manager, payout.vendorId, holdOf(payout));
    return payoutRecordOf(updated[0]);
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
    await manager.query(`UPDATE payouts SET delivery_encrypted = $2 WHERE id = $1`, [payoutId, this.encryptDelivery(payoutId, delivery)]);
  }

  private encryptDelivery(payoutId: string, delivery: PayoutDelivery): string {
    const stored: StoredDelivery = { pin: delivery.pin, serial: delivery.serial, instructions: delivery.instructions, expires_at: delivery.expiresAt };
    return this.encryption.encryptJson(stored, deliveryContext(payoutId));
  }
}

/** What every provider answer records about the exchange itself, whatever the verdict. */
interface ProviderContact {
  fromSubmission: boolean;
  providerReference: string | null;
}

function validDate(value: string | null): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
