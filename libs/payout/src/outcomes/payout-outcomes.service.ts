import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { NOT_FOUND_PROOF_STREAK, type PayoutProviderPayment } from '#providers';
import { enqueueWebhookDeliveries } from '#webhooks';
import { PayoutLedgerService } from '../ledger/payout-ledger.service.js';
import { LedgerInvariantError } from '../model/ledger-errors.js';
import {
  type PayoutObservation,
  type ProviderContactEvidence,
  type SubmissionFollowUp,
  type SubmissionVerdict,
} from '../model/payout-outcome.js';
import { holdOf, type PayoutRecord } from '../model/payout-record.js';
import { payoutViewOf } from '../model/payout-view.js';
import { PayoutPollSchedule } from '../model/payout-poll-schedule.js';
import { PayoutEvidenceRepository } from '../persistence/payout-evidence.repository.js';
import { PayoutOutcomeRepository } from '../persistence/payout-outcome.repository.js';
import { PayoutRepository } from '../persistence/payout.repository.js';
import { PayoutStatusMoves } from './payout-status-moves.js';
import { answerContact, answerMismatchesOf, validDate } from './provider-answer.js';

/**
 * Every status change of a payout, each in one transaction with its ledger movement and guarded
 * by the current status, so a submission answer and a status poll racing on the same payout
 * apply a verdict once:
 *   pending → paid (settle) | failed (release) | reversed (settle + reverse) | needs_review
 *   needs_review → paid | failed | reversed (a late answer, or staff)
 *   paid → reversed (reverse)
 *   pending, not yet submitted → cancelled (release)
 *   pending | needs_review, provably never received by the provider → failed (release)
 * Every provider answer is first checked against what we sent (merchant reference, amount): an
 * answer that differs moves nothing and raises a reconciliation exception. Every exchange is
 * appended to `payout_provider_contacts`, the evidence staff read.
 */
@Injectable()
export class PayoutOutcomesService {
  private readonly logger = new Logger(PayoutOutcomesService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: PayoutLedgerService,
    private readonly payouts: PayoutRepository,
    private readonly records: PayoutOutcomeRepository,
    private readonly evidence: PayoutEvidenceRepository,
    private readonly moves: PayoutStatusMoves,
    private readonly schedule: PayoutPollSchedule,
  ) {}

  /**
   * Applies what the provider says about the payout (from a submission answer or a status lookup)
   * under its row lock (applyToLocked). Returns the payout as it now stands.
   */
  async applyProviderPayment(payoutId: string, payment: PayoutProviderPayment, fromSubmission: boolean): Promise<PayoutRecord | null> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.payouts.findForWorker(payoutId, manager, true);
      return payout ? this.applyToLocked(manager, payout, payment, fromSubmission) : null;
    });
  }

  /**
   * A submission's answer for the payout as the submitter holds it (`known`, read when the marker
   * was set). The common case, a single payout answered "paid" for exactly what was sent, is one
   * statement in one transaction with its follow-up (PayoutOutcomeRepository.recordPaidSubmission);
   * every other answer, or a payout that changed meanwhile, is applied as applyProviderPayment
   * does, and the caller writes the follow-up itself.
   */
  async applySubmissionPayment(known: PayoutRecord, payment: PayoutProviderPayment, followUp: SubmissionFollowUp | null): Promise<SubmissionVerdict> {
    const plainPaid = followUp !== null && known.batchId === null && payment.found && payment.outcome === 'paid' && answerMismatchesOf(known, payment).length === 0;
    if (!plainPaid) return { payout: await this.applyProviderPayment(known.id, payment, true), followedUp: false };
    return this.dataSource.transaction(async (manager) => {
      const paidAt = validDate(payment.paidAt) ?? new Date();
      const providerReference = known.providerReference ?? payment.providerReference;
      // The event's data is the payout as the update leaves it; the update applies only to a payout still holding known.providerReference.
      const after: PayoutRecord = { ...known, status: 'paid', statusReason: null, paidAt, providerReference };
      const result = await this.records.recordPaidSubmission(manager, {
        payoutId: known.id,
        vendorId: known.vendorId,
        knownProviderReference: known.providerReference,
        paidAt,
        providerReference: payment.providerReference,
        deliveryEncrypted: payment.delivery ? this.moves.encryptDelivery(known.id, payment.delivery.reveal()) : null,
        contact: answerContact(payment, true),
        hold: holdOf(known),
        event: { vendorId: known.vendorId, type: 'payout.paid', resourceId: known.id, data: payoutViewOf(after, null) },
        notifyChannel: followUp.notifyChannel,
        deliveryRead: followUp.deliveryRead,
      });
      if (!result.applied) {
        if (!result.found) return { payout: null, followedUp: false };
        // It changed meanwhile (a status poll answered first): the statement locked it; apply the answer as any other.
        const locked = (await this.payouts.findForWorker(known.id, manager))!;
        return { payout: await this.applyToLocked(manager, locked, payment, true), followedUp: false };
      }
      if (!result.settled) throw new LedgerInvariantError(`settle for payout ${known.id}: reserved balance does not hold ${holdOf(known).cents} cents`);
      await enqueueWebhookDeliveries(manager, result.webhookDeliveries);
      return { payout: result.payout, followedUp: true };
    });
  }

  /**
   * For a payout the caller has just read `FOR UPDATE` in this transaction: the contact (answered,
   * last checked, provider reference) and the verdict are written together, and the ledger
   * movement comes last (it locks the vendor's account row until commit). Returns the payout as
   * it now stands.
   */
  async applyToLocked(
    manager: EntityManager,
    payout: PayoutRecord,
    payment: PayoutProviderPayment,
    fromSubmission: boolean,
    observation: PayoutObservation = { via: fromSubmission ? 'submission' : 'lookup' },
  ): Promise<PayoutRecord> {
    const payoutId = payout.id;
    if (!payment.found) return this.applyNotFound(manager, payout, fromSubmission);
    const mismatches = answerMismatchesOf(payout, payment);
    if (mismatches.length > 0) return this.moves.refuseMismatched(manager, payout, payment, fromSubmission, mismatches);
    await this.moves.appendContact(manager, payout.id, fromSubmission, payment.outcome, answerContact(payment, fromSubmission));
    const open = payout.status === 'pending' || payout.status === 'needs_review';
    if (open && (payment.outcome === 'paid' || payment.outcome === 'reversed')) {
      const paid = await this.moves.markPaid(manager, payout, payment, fromSubmission);
      if (payment.outcome === 'paid') return paid;
      // It was paid and reversed before we heard of the payment: both movements, so the books tell what happened.
      await this.moves.markReversed(manager, paid, payment.reversedAt, observation);
      return (await this.payouts.findForWorker(payoutId, manager))!;
    }
    // The provider's proof wins over our release: the books follow it (docs/RECONCILIATION.md, "Corrections").
    if (payout.status === 'failed' && (payment.outcome === 'paid' || payment.outcome === 'reversed')) return this.moves.applyPaidAfterRelease(manager, payout, payment, observation);
    const contacted = await this.moves.recordContact(manager, payout, payment, fromSubmission);
    switch (payment.outcome) {
      case 'paid':
        if (payout.status === 'paid' && payout.deliveryEncrypted === null && payment.delivery) {
          await this.records.storeDelivery(manager, payout.id, this.moves.encryptDelivery(payout.id, payment.delivery.reveal()));
        }
        else if (payout.status !== 'paid') await this.moves.raiseStatusConflict(manager, payout, payment.providerStatus ?? 'PAID', fromSubmission);
        else return contacted;
        break;
      case 'rejected':
        if (open) await this.moves.markFailed(manager, payout, 'provider_rejected');
        else if (payout.status !== 'failed') await this.moves.raiseStatusConflict(manager, payout, payment.providerStatus ?? 'REJECTED', fromSubmission);
        else return contacted;
        break;
      case 'reversed':
        if (payout.status !== 'paid') return contacted;
        await this.moves.markReversed(manager, payout, payment.reversedAt, observation);
        break;
      case 'pending':
        if (payout.status !== 'pending') return contacted;
        await this.records.markAwaitingProvider(manager, payout.id);
        break;
      case 'unknown':
        // A status we do not recognise: never a verdict. Polling decides.
        if (payout.status !== 'pending' || !fromSubmission) return contacted;
        await this.records.markAwaitingProvider(manager, payout.id);
        break;
    }
    return (await this.payouts.findForWorker(payoutId, manager))!;
  }

  /**
   * Staff resolve a payout in `needs_review` the provider cannot answer for (an approved
   * four-eyes proposal, in the approval's transaction), moving money as a provider answer would:
   * paid settles the hold, failed releases it, each once (the guarded status update comes first)
   * and with its webhook events. Refused, changing nothing, when the payout has left
   * needs_review (a provider answer closed it: that stands) or its provider trail holds a final
   * answer that contradicts the resolution.
   */
  async resolveByStaff(manager: EntityManager, payoutId: string, outcome: 'paid' | 'failed'): Promise<{ resolved: true; payout: PayoutRecord } | { resolved: false; reason: string }> {
    const payout = await this.payouts.findForWorker(payoutId, manager, true);
    if (!payout) return { resolved: false, reason: 'The payout does not exist.' };
    if (payout.status !== 'needs_review') return { resolved: false, reason: `The payout is ${payout.status} now, from the provider's answer; it can no longer be resolved by hand.` };
    const verified = (await this.evidence.contacts(payoutId, manager)).map((contact) => contact.outcome).filter((said) => said === 'paid' || said === 'rejected' || said === 'reversed');
    const contradicting = verified.find((said) => (outcome === 'failed' ? said !== 'rejected' : said === 'rejected'));
    if (contradicting) return { resolved: false, reason: `The provider answered ${contradicting} for this payout, which contradicts ${outcome}.` };
    if (outcome === 'paid') {
      const paid = await this.records.markPaidByStaff(manager, payoutId);
      if (!paid) return { resolved: false, reason: 'The payout changed meanwhile.' };
      await this.ledger.settle(manager, payout.vendorId, holdOf(payout));
      await this.moves.recordWebhookEvents(manager, payoutId, 'payout.paid');
    } else {
      if (!(await this.records.markFailed(manager, payoutId, 'resolved_by_staff'))) return { resolved: false, reason: 'The payout changed meanwhile.' };
      await this.ledger.release(manager, payout.vendorId, holdOf(payout));
      await this.moves.recordWebhookEvents(manager, payoutId, 'payout.failed');
    }
    return { resolved: true, payout: (await this.payouts.findForWorker(payoutId, manager))! };
  }

  /**
   * The submission got no usable answer (timeout, network, 5xx, 409), or was never sent (see
   * PayoutSubmissionService): the outcome is unknown and polling resolves it. The attempt has ended now,
   * which starts the settle period before a "not found" counts.
   */
  async recordUnanswered(payoutId: string, evidence: ProviderContactEvidence & { outcome?: string } = {}): Promise<PayoutRecord | null> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.records.markUnanswered(manager, payoutId);
      if (!payout) return null;
      await this.moves.appendContact(manager, payoutId, true, evidence.outcome ?? 'no_answer', evidence);
      return payout;
    });
  }

  /** The provider refused the request itself (a 4xx): nothing was paid, so the hold is released. */
  async recordRefused(payoutId: string, evidence: ProviderContactEvidence = {}): Promise<PayoutRecord | null> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.payouts.findForWorker(payoutId, manager, true);
      if (!payout) return null;
      await this.moves.appendContact(manager, payout.id, true, 'refused', evidence);
      await this.records.markAnswered(manager, payout.id);
      if (payout.status === 'pending') await this.moves.markFailed(manager, payout, 'provider_rejected');
      return this.payouts.findForWorker(payoutId, manager);
    });
  }

  /** A lookup that could not be made or answered nothing usable (after the transport's retries): kept as evidence only. */
  async recordLookupFailed(payoutId: string, evidence: ProviderContactEvidence = {}): Promise<void> {
    await this.moves.appendContact(this.dataSource.manager, payoutId, false, 'error', evidence);
  }

  /** Operations: a payout not yet handed to a provider (a waiting batch item) is cancelled and its hold released. */
  async cancelUnsubmitted(payoutId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.payouts.findForWorker(payoutId, manager, true);
      if (!payout || payout.status !== 'pending' || payout.submissionStartedAt !== null) return false;
      await this.records.markCancelled(manager, payout.id);
      await this.ledger.release(manager, payout.vendorId, holdOf(payout));
      await this.moves.recordWebhookEvents(manager, payout.id, null);
      return true;
    });
  }

  /**
   * The provider holds no payment under the merchant reference. That proves it never received
   * the payout only if (1) it never acknowledged one (no earlier answer carried a payment), (2)
   * the lookup came after the submission attempt ended plus the settle period, since a provider
   * may record a payment a little after a call that timed out, and (3) it is seen twice in a row
   * under (2). Then the payout fails and its hold is released, once: the status update is guarded
   * and the ledger allows one release per payout. An acknowledged payout the provider no longer
   * finds is a status conflict for staff; nothing moves.
   */
  private async applyNotFound(manager: EntityManager, payout: PayoutRecord, fromSubmission: boolean): Promise<PayoutRecord> {
    const open = payout.status === 'pending' || payout.status === 'needs_review';
    const contact = (summary: string) => this.moves.appendContact(manager, payout.id, fromSubmission, 'not_found', { httpStatus: 404, summary });
    // The contact of a lookup that moves nothing, and the payout as it now stands.
    const recorded = async (summary: string) => {
      await contact(summary);
      return (await this.payouts.findForWorker(payout.id, manager))!;
    };
    await this.records.touchLastChecked(manager, payout.id);
    if (payout.providerSeenAt !== null || payout.status === 'paid') {
      await contact('no payment under the merchant reference, although the provider answered with one before');
      if (open || payout.status === 'paid') await this.moves.raiseStatusConflict(manager, payout, 'NOT_FOUND', fromSubmission);
      return (await this.payouts.findForWorker(payout.id, manager))!;
    }
    const countsFrom = this.schedule.notFoundCountsFrom(payout);
    if (!open) return recorded(`no payment; payout already ${payout.status}`);
    if (countsFrom === null) return recorded('no payment; the payout was never submitted');
    const now = await this.records.databaseNow(manager);
    if (now.getTime() < countsFrom.getTime()) {
      return recorded(`no payment; not counted: within the settle period (counts from ${countsFrom.toISOString()})`);
    }
    const streak = payout.notFoundStreak + 1;
    await this.records.setNotFoundStreak(manager, payout.id, streak);
    if (streak < NOT_FOUND_PROOF_STREAK) return recorded(`no payment; ${streak} of ${NOT_FOUND_PROOF_STREAK} after the settle period`);
    await contact(`no payment; ${streak} of ${NOT_FOUND_PROOF_STREAK} after the settle period: never received, hold released`);
    this.logger.warn({ payoutId: payout.id, status: payout.status }, 'Provider never received the payout; failed and hold released');
    await this.moves.markFailed(manager, payout, 'not_received_by_provider');
    return (await this.payouts.findForWorker(payout.id, manager))!;
  }

}
