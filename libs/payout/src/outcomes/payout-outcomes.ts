import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { FieldEncryption } from '#common';
import { formatCents, parseDecimalAmount, type Cents } from '#money';
import { NOT_FOUND_PROOF_STREAK, type PayoutDelivery, type PayoutProviderPayment } from '#providers';
import { ReconciliationExceptionsRepository, type ReconciliationExceptionKind } from '#reconciliation';
import { enqueueWebhookDeliveries, recordWebhookEvent, type PayoutWebhookEvent } from '#webhooks';
import { batchViewOf } from '../model/batch-view.js';
import { PayoutLedger } from '../ledger/payout-ledger.js';
import { LedgerInvariantError } from '../model/ledger-errors.js';
import { deliveryContext, holdOf, type DeliveryReadChannel, type PayoutRecord, type StoredDelivery } from '../model/payout-record.js';
import { PayoutBatchRepository } from '../persistence/payout-batch.repository.js';
import { PayoutRepository, type ProviderContactRow } from '../persistence/payout.repository.js';
import { payoutViewOf } from '../model/payout-view.js';
import { PayoutPollSchedule } from '../model/payout-poll-schedule.js';

/**
 * Where a provider statement came from, for the exceptions it raises: a settlement line names
 * its report day, its provider and the line's evidence; a lookup or submission answer only `via`.
 */
export interface PayoutObservation {
  via: 'submission' | 'lookup' | 'settlement_report';
  provider?: string;
  reportDate?: string | null;
  details?: Record<string, unknown>;
}

/** What a contact records of one exchange with the provider (never a PIN or a key). */
export type ProviderContactEvidence = Partial<Pick<ProviderContactRow, 'httpStatus' | 'summary'>>;

/**
 * A failed provider call as evidence: its stable code and HTTP status only. The message is left
 * out on purpose: a provider's error text may echo what it was sent (a recipient's identity).
 */
export function providerErrorEvidence(error: unknown): ProviderContactEvidence {
  const { code, status } = error as { code?: unknown; status?: unknown };
  const httpStatus = typeof status === 'number' ? status : null;
  return { httpStatus, summary: `${typeof code === 'string' ? code : 'UNEXPECTED_ERROR'}${httpStatus !== null ? ` (HTTP ${httpStatus})` : ''}` };
}

/**
 * What a single payout's request writes with its submission's verdict when it can (PayoutsService):
 * the NOTIFY that wakes replays waiting for the answer, and the delivery-read audit row of a
 * response that embeds the delivery.
 */
export interface SubmissionFollowUp {
  notifyChannel: string;
  deliveryRead: { tokenId: string; channel: DeliveryReadChannel } | null;
}

/** A submission's verdict; `followedUp` tells whether the follow-up was written with it (else the caller writes it). */
export interface SubmissionVerdict {
  payout: PayoutRecord | null;
  followedUp: boolean;
}

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
export class PayoutOutcomes {
  private readonly logger = new Logger(PayoutOutcomes.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly ledger: PayoutLedger,
    private readonly payouts: PayoutRepository,
    private readonly batches: PayoutBatchRepository,
    private readonly encryption: FieldEncryption,
    private readonly exceptions: ReconciliationExceptionsRepository,
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
   * statement in one transaction with its follow-up (PayoutRepository.recordPaidSubmission);
   * every other answer, or a payout that changed meanwhile, is applied as applyProviderPayment
   * does, and the caller writes the follow-up itself.
   */
  async applySubmissionPayment(known: PayoutRecord, payment: PayoutProviderPayment, followUp: SubmissionFollowUp | null): Promise<SubmissionVerdict> {
    const plainPaid = followUp !== null && known.batchId === null && payment.found && payment.outcome === 'paid' && this.mismatchesOf(known, payment).length === 0;
    if (!plainPaid) return { payout: await this.applyProviderPayment(known.id, payment, true), followedUp: false };
    return this.dataSource.transaction(async (manager) => {
      const paidAt = validDate(payment.paidAt) ?? new Date();
      const providerReference = known.providerReference ?? payment.providerReference;
      // The event's data is the payout as the update leaves it; the update applies only to a payout still holding known.providerReference.
      const after: PayoutRecord = { ...known, status: 'paid', statusReason: null, paidAt, providerReference };
      const result = await this.payouts.recordPaidSubmission(manager, {
        payoutId: known.id,
        vendorId: known.vendorId,
        knownProviderReference: known.providerReference,
        paidAt,
        providerReference: payment.providerReference,
        deliveryEncrypted: payment.delivery ? this.encryptDelivery(known.id, payment.delivery.reveal()) : null,
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
    const mismatches = this.mismatchesOf(payout, payment);
    if (mismatches.length > 0) return this.refuseMismatched(manager, payout, payment, fromSubmission, mismatches);
    await this.appendContact(manager, payout.id, fromSubmission, payment.outcome, answerContact(payment, fromSubmission));
    const open = payout.status === 'pending' || payout.status === 'needs_review';
    if (open && (payment.outcome === 'paid' || payment.outcome === 'reversed')) {
      const paid = await this.markPaid(manager, payout, payment, fromSubmission);
      if (payment.outcome === 'paid') return paid;
      // It was paid and reversed before we heard of the payment: both movements, so the books tell what happened.
      await this.markReversed(manager, paid, payment.reversedAt, observation);
      return (await this.payouts.findForWorker(payoutId, manager))!;
    }
    // The provider's proof wins over our release: the books follow it (docs/RECONCILIATION.md, "Corrections").
    if (payout.status === 'failed' && (payment.outcome === 'paid' || payment.outcome === 'reversed')) return this.applyPaidAfterRelease(manager, payout, payment, observation);
    const contacted = await this.recordContact(manager, payout, payment, fromSubmission);
    switch (payment.outcome) {
      case 'paid':
        if (payout.status === 'paid' && payout.deliveryEncrypted === null && payment.delivery) {
          await this.payouts.storeDelivery(manager, payout.id, this.encryptDelivery(payout.id, payment.delivery.reveal()));
        }
        else if (payout.status !== 'paid') await this.raiseStatusConflict(manager, payout, payment.providerStatus ?? 'PAID', fromSubmission);
        else return contacted;
        break;
      case 'rejected':
        if (open) await this.markFailed(manager, payout, 'provider_rejected');
        else if (payout.status !== 'failed') await this.raiseStatusConflict(manager, payout, payment.providerStatus ?? 'REJECTED', fromSubmission);
        else return contacted;
        break;
      case 'reversed':
        if (payout.status !== 'paid') return contacted;
        await this.markReversed(manager, payout, payment.reversedAt, observation);
        break;
      case 'pending':
        if (payout.status !== 'pending') return contacted;
        await this.payouts.markAwaitingProvider(manager, payout.id);
        break;
      case 'unknown':
        // A status we do not recognise: never a verdict. Polling decides.
        if (payout.status !== 'pending' || !fromSubmission) return contacted;
        await this.payouts.markAwaitingProvider(manager, payout.id);
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
    const verified = (await this.payouts.contacts(payoutId, manager)).map((contact) => contact.outcome).filter((said) => said === 'paid' || said === 'rejected' || said === 'reversed');
    const contradicting = verified.find((said) => (outcome === 'failed' ? said !== 'rejected' : said === 'rejected'));
    if (contradicting) return { resolved: false, reason: `The provider answered ${contradicting} for this payout, which contradicts ${outcome}.` };
    if (outcome === 'paid') {
      const paid = await this.payouts.markPaidByStaff(manager, payoutId);
      if (!paid) return { resolved: false, reason: 'The payout changed meanwhile.' };
      await this.ledger.settle(manager, payout.vendorId, holdOf(payout));
      await this.recordWebhookEvents(manager, payoutId, 'payout.paid');
    } else {
      if (!(await this.payouts.markFailed(manager, payoutId, 'resolved_by_staff'))) return { resolved: false, reason: 'The payout changed meanwhile.' };
      await this.ledger.release(manager, payout.vendorId, holdOf(payout));
      await this.recordWebhookEvents(manager, payoutId, 'payout.failed');
    }
    return { resolved: true, payout: (await this.payouts.findForWorker(payoutId, manager))! };
  }

  /**
   * The submission got no usable answer (timeout, network, 5xx, 409), or was never sent (see
   * PayoutSubmitter): the outcome is unknown and polling resolves it. The attempt has ended now,
   * which starts the settle period before a "not found" counts.
   */
  async recordUnanswered(payoutId: string, evidence: ProviderContactEvidence & { outcome?: string } = {}): Promise<PayoutRecord | null> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.payouts.markUnanswered(manager, payoutId);
      if (!payout) return null;
      await this.appendContact(manager, payoutId, true, evidence.outcome ?? 'no_answer', evidence);
      return payout;
    });
  }

  /** The provider refused the request itself (a 4xx): nothing was paid, so the hold is released. */
  async recordRefused(payoutId: string, evidence: ProviderContactEvidence = {}): Promise<PayoutRecord | null> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.payouts.findForWorker(payoutId, manager, true);
      if (!payout) return null;
      await this.appendContact(manager, payout.id, true, 'refused', evidence);
      await this.payouts.markAnswered(manager, payout.id);
      if (payout.status === 'pending') await this.markFailed(manager, payout, 'provider_rejected');
      return this.payouts.findForWorker(payoutId, manager);
    });
  }

  /** A lookup that could not be made or answered nothing usable (after the transport's retries): kept as evidence only. */
  async recordLookupFailed(payoutId: string, evidence: ProviderContactEvidence = {}): Promise<void> {
    await this.appendContact(this.dataSource.manager, payoutId, false, 'error', evidence);
  }

  /** Operations: a payout not yet handed to a provider (a waiting batch item) is cancelled and its hold released. */
  async cancelUnsubmitted(payoutId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const payout = await this.payouts.findForWorker(payoutId, manager, true);
      if (!payout || payout.status !== 'pending' || payout.submissionStartedAt !== null) return false;
      await this.payouts.markCancelled(manager, payout.id);
      await this.ledger.release(manager, payout.vendorId, holdOf(payout));
      await this.recordWebhookEvents(manager, payout.id, null);
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
    const contact = (summary: string) => this.appendContact(manager, payout.id, fromSubmission, 'not_found', { httpStatus: 404, summary });
    // The contact of a lookup that moves nothing, and the payout as it now stands.
    const recorded = async (summary: string) => {
      await contact(summary);
      return (await this.payouts.findForWorker(payout.id, manager))!;
    };
    await this.payouts.touchLastChecked(manager, payout.id);
    if (payout.providerSeenAt !== null || payout.status === 'paid') {
      await contact('no payment under the merchant reference, although the provider answered with one before');
      if (open || payout.status === 'paid') await this.raiseStatusConflict(manager, payout, 'NOT_FOUND', fromSubmission);
      return (await this.payouts.findForWorker(payout.id, manager))!;
    }
    const countsFrom = this.schedule.notFoundCountsFrom(payout);
    if (!open) return recorded(`no payment; payout already ${payout.status}`);
    if (countsFrom === null) return recorded('no payment; the payout was never submitted');
    const now = await this.payouts.databaseNow(manager);
    if (now.getTime() < countsFrom.getTime()) {
      return recorded(`no payment; not counted: within the settle period (counts from ${countsFrom.toISOString()})`);
    }
    const streak = payout.notFoundStreak + 1;
    await this.payouts.setNotFoundStreak(manager, payout.id, streak);
    if (streak < NOT_FOUND_PROOF_STREAK) return recorded(`no payment; ${streak} of ${NOT_FOUND_PROOF_STREAK} after the settle period`);
    await contact(`no payment; ${streak} of ${NOT_FOUND_PROOF_STREAK} after the settle period: never received, hold released`);
    this.logger.warn({ payoutId: payout.id, status: payout.status }, 'Provider never received the payout; failed and hold released');
    await this.markFailed(manager, payout, 'not_received_by_provider');
    return (await this.payouts.findForWorker(payout.id, manager))!;
  }

  /** What differs between the provider's answer and what we sent; empty when it is about our payout. */
  private mismatchesOf(payout: PayoutRecord, payment: PayoutProviderPayment): Array<'reference_mismatch' | 'amount_mismatch'> {
    const mismatches: Array<'reference_mismatch' | 'amount_mismatch'> = [];
    if (payment.merchantReference !== payout.merchantReference) mismatches.push('reference_mismatch');
    if (answeredCents(payment.amount) !== payout.amountCents) mismatches.push('amount_mismatch');
    return mismatches;
  }

  /**
   * An answer about some other payment, or for another amount, is not evidence about ours: no
   * verdict, no money moved, the payout stays as it was and staff get an exception per
   * disagreement with both sides. The provider did answer with a payment, so a later "not found"
   * cannot release this payout automatically.
   */
  private async refuseMismatched(
    manager: EntityManager,
    payout: PayoutRecord,
    payment: PayoutProviderPayment,
    fromSubmission: boolean,
    mismatches: Array<'reference_mismatch' | 'amount_mismatch'>,
  ): Promise<PayoutRecord> {
    this.logger.error({ payoutId: payout.id, mismatches, fromSubmission }, 'Provider answer differs from what was sent; refused, left for staff');
    const details = {
      via: fromSubmission ? 'submission' : 'lookup',
      payout_status: payout.status,
      sent: { merchant_reference: payout.merchantReference, amount: formatCents(payout.amountCents) },
      answered: { merchant_reference: payment.merchantReference, amount: payment.amount, status: payment.providerStatus, provider_reference: payment.providerReference },
    };
    for (const kind of mismatches) await this.raise(manager, payout, kind, details);
    await this.appendContact(manager, payout.id, fromSubmission, 'refused_mismatch', {
      httpStatus: 200,
      summary: `answer refused (${mismatches.join(', ')}): provider status ${payment.providerStatus ?? 'none'}`,
    });
    return this.payouts.recordRefusedAnswer(manager, payout.id, fromSubmission);
  }

  /** The provider's word contradicts a status we hold: nothing moves, staff decide. */
  private async raiseStatusConflict(manager: EntityManager, payout: PayoutRecord, providerSays: string, fromSubmission: boolean): Promise<void> {
    this.logger.error({ payoutId: payout.id, status: payout.status, providerSays }, 'Provider answer contradicts the payout status; left for staff');
    await this.raise(manager, payout, 'status_conflict', {
      via: fromSubmission ? 'submission' : 'lookup',
      payout_status: payout.status,
      provider_says: providerSays,
      provider_seen_at: payout.providerSeenAt?.toISOString() ?? null,
      merchant_reference: payout.merchantReference,
      amount: formatCents(payout.amountCents),
    });
  }

  private async raise(manager: EntityManager, payout: PayoutRecord, kind: ReconciliationExceptionKind, details: Record<string, unknown>): Promise<void> {
    await this.exceptions.raise(
      { domain: 'payout', kind, dedupeKey: `payout:${payout.id}:${kind}`, vendorId: payout.vendorId, payoutId: payout.id, provider: payout.method, details },
      manager,
    );
  }

  /** Appends one exchange to the payout's provider trail (append-only table). */
  private async appendContact(manager: Pick<EntityManager, 'query'>, payoutId: string, fromSubmission: boolean, outcome: string, evidence: ProviderContactEvidence): Promise<void> {
    await this.payouts.appendContact(manager, {
      payoutId,
      kind: fromSubmission ? 'submission' : 'lookup',
      outcome,
      httpStatus: evidence.httpStatus ?? null,
      summary: evidence.summary?.slice(0, 500) ?? null,
    });
  }

  /**
   * The contact (answered, last checked, the answer's provider reference) without a change of
   * status. Returns the payout with what this wrote, read back from RETURNING (the lock is held,
   * so nothing else changed it).
   */
  private async recordContact(manager: EntityManager, payout: PayoutRecord, payment: PayoutProviderPayment, fromSubmission: boolean): Promise<PayoutRecord> {
    const written = await this.payouts.recordContact(manager, payout.id, payment.providerReference, fromSubmission);
    return { ...payout, ...written, notFoundStreak: 0 };
  }

  /** Contact, status and delivery in one statement, then the settlement (last: it locks the account row). */
  private async markPaid(manager: EntityManager, payout: PayoutRecord, payment: PayoutProviderPayment, fromSubmission: boolean): Promise<PayoutRecord> {
    const paidAt = validDate(payment.paidAt) ?? new Date();
    const delivery = payment.delivery ? this.encryptDelivery(payout.id, payment.delivery.reveal()) : null;
    const updated = await this.payouts.markPaid(manager, payout.id, {
      paidAt,
      providerReference: payment.providerReference,
      fromSubmission,
      deliveryEncrypted: delivery,
    });
    // Unreachable under the row lock (the caller saw it open); kept so a change elsewhere cannot settle twice.
    if (!updated) return this.recordContact(manager, payout, payment, fromSubmission);
    await this.ledger.settle(manager, payout.vendorId, holdOf(payout));
    await this.recordWebhookEvents(manager, payout.id, 'payout.paid');
    return updated;
  }

  private async markFailed(manager: EntityManager, payout: PayoutRecord, reason: 'provider_rejected' | 'not_received_by_provider'): Promise<void> {
    if (!(await this.payouts.markFailed(manager, payout.id, reason))) return;
    await this.ledger.release(manager, payout.vendorId, holdOf(payout));
    await this.recordWebhookEvents(manager, payout.id, 'payout.failed');
  }

  /**
   * paid → reversed: amount + fee back to available (once: the ledger holds one `reverse` per
   * payout). A payout whose books were corrected after the fact (a `resettle`: staff were told to
   * recover the money from the vendor) raises `reversed_after_correction`, a new exception
   * whatever became of the first, so staff see that the money came back.
   */
  private async markReversed(manager: EntityManager, payout: PayoutRecord, reversedAt: string | null, observation: PayoutObservation, raiseIfCorrected = true): Promise<void> {
    if (!(await this.payouts.markReversed(manager, payout.id, validDate(reversedAt) ?? new Date()))) return;
    if (raiseIfCorrected && (await this.ledger.wasResettled(manager, payout.id))) {
      await this.exceptions.raise(
        {
          ...this.exceptionBase(payout, observation),
          kind: 'reversed_after_correction',
          dedupeKey: `payout:${payout.id}:reversed_after_correction`,
          details: {
            ...observation.details,
            via: observation.via,
            merchant_reference: payout.merchantReference,
            amount: formatCents(payout.amountCents),
            returned: formatCents(holdOf(payout).cents),
          },
        },
        manager,
      );
    }
    await this.ledger.reverse(manager, payout.vendorId, holdOf(payout));
    await this.recordWebhookEvents(manager, payout.id, 'payout.reversed');
  }

  /**
   * The provider proves paid (or paid and since reversed) a payout we had released as failed
   * (not received, rejected, or resolved failed by staff): the books follow the proof. The
   * payout becomes `paid` (`paid_after_release`), a `resettle` entry debits amount + fee again at
   * once, whatever `available` holds (the vendor may now be in debt), and a `paid_after_release`
   * exception tells staff to deal with the vendor; the entry names it. Once: the status update is
   * guarded by `failed` under the row lock, and the ledger allows one `resettle` per payout.
   */
  private async applyPaidAfterRelease(manager: EntityManager, payout: PayoutRecord, payment: PayoutProviderPayment, observation: PayoutObservation): Promise<PayoutRecord> {
    const paid = await this.payouts.markPaidAfterRelease(manager, payout.id, { paidAt: validDate(payment.paidAt) ?? new Date(), providerReference: payment.providerReference });
    if (!paid) return (await this.payouts.findForWorker(payout.id, manager))!;
    this.logger.error({ payoutId: payout.id, releasedAs: payout.statusReason, providerSays: payment.providerStatus, via: observation.via }, 'Provider proved paid a payout we released; re-debited');
    if (payment.delivery) await this.payouts.storeDelivery(manager, payout.id, this.encryptDelivery(payout.id, payment.delivery.reveal()));
    const hold = holdOf(payout);
    const { id: exceptionId } = await this.exceptions.raiseAndName(
      {
        ...this.exceptionBase(payout, observation),
        kind: 'paid_after_release',
        dedupeKey: `payout:${payout.id}:paid_after_release`,
        details: {
          ...observation.details,
          via: observation.via,
          released_as: payout.statusReason,
          provider_says: payment.providerStatus ?? payment.outcome.toUpperCase(),
          merchant_reference: payout.merchantReference,
          amount: formatCents(payout.amountCents),
          debited_again: formatCents(hold.cents),
        },
      },
      manager,
    );
    await this.ledger.correct(manager, {
      kind: 'resettle',
      vendorId: payout.vendorId,
      cents: hold.cents,
      payoutId: payout.id,
      reason: `provider proved paid (${observation.via}) a payout released as ${payout.statusReason ?? 'failed'}`,
      exceptionId,
      proposalId: null,
      approvedBy: null,
    });
    await this.recordWebhookEvents(manager, payout.id, 'payout.paid');
    // Paid and since reversed: both movements, so the books tell what happened (net: nothing owed).
    if (payment.outcome === 'reversed') await this.markReversed(manager, paid, payment.reversedAt, observation, false);
    return (await this.payouts.findForWorker(payout.id, manager))!;
  }

  private exceptionBase(payout: PayoutRecord, observation: PayoutObservation) {
    return { domain: 'payout' as const, vendorId: payout.vendorId, payoutId: payout.id, provider: observation.provider ?? payout.method, reportDate: observation.reportDate ?? null };
  }

  /**
   * Webhook events of a status move, in the move's transaction (outbox): the payout's event, and
   * `batch.completed` once when this move leaves no item of its batch open. The batch row is
   * locked first so two items finishing at the same time cannot both miss (or both write) it, and
   * the items are read only once none is open (reading them on every move made a 500-item batch
   * quadratic); the dedupe key makes it once per batch even if a later reversal recomputes it.
   * Data is the resource as the payout API returns it, with `delivery` always null: PINs and
   * vouchers are read only through GET /payouts/{reference}/delivery, never pushed.
   */
  private async recordWebhookEvents(manager: EntityManager, payoutId: string, type: PayoutWebhookEvent | null): Promise<void> {
    const payout = (await this.payouts.findForWorker(payoutId, manager))!;
    if (type) await recordWebhookEvent(manager, { vendorId: payout.vendorId, type, resourceId: payout.id, data: payoutViewOf(payout, null) });
    if (!payout.batchId) return;
    const batch = await this.batches.lockForItemMove(manager, payout.batchId);
    if (await this.payouts.batchHasOpenItems(manager, batch.id)) return;
    const items = await this.payouts.listBatchItemsForWorker(manager, batch.id);
    const view = batchViewOf(batch, items);
    if (view.status !== 'completed' && view.status !== 'completed_with_failures') return;
    await recordWebhookEvent(manager, { vendorId: payout.vendorId, type: 'batch.completed', resourceId: batch.id, dedupeKey: `batch.completed:${batch.id}`, data: view });
  }

  private encryptDelivery(payoutId: string, delivery: PayoutDelivery): string {
    const stored: StoredDelivery = { pin: delivery.pin, serial: delivery.serial, instructions: delivery.instructions, expires_at: delivery.expiresAt };
    return this.encryption.encryptJson(stored, deliveryContext(payoutId));
  }
}

/** The contact a found payment is recorded with. */
function answerContact(payment: PayoutProviderPayment, fromSubmission: boolean): { httpStatus: number; summary: string } {
  return {
    httpStatus: fromSubmission ? (payment.replayed ? 200 : 201) : 200,
    summary: `provider status ${payment.providerStatus ?? 'none'}${payment.replayed ? ' (already held)' : ''}`.slice(0, 500),
  };
}

/** The provider's amount in cents; null when absent or not a plain decimal (which never matches ours). */
function answeredCents(amount: string | null): Cents | null {
  if (amount === null) return null;
  try {
    return parseDecimalAmount(amount, { maxPlaces: 2 });
  } catch {
    return null;
  }
}

function validDate(value: string | null): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
