import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { FieldEncryption } from '#common';
import { formatCents } from '#money';
import type { PayoutDelivery, PayoutProviderPayment } from '#providers';
import { ReconciliationExceptionsService, type ReconciliationExceptionKind } from '#reconciliation';
import { recordWebhookEvent, type PayoutWebhookEvent } from '#webhooks';
import { batchViewOf } from '../model/batch-view.js';
import { PayoutLedgerService } from '../ledger/payout-ledger.service.js';
import type { PayoutObservation, ProviderContactEvidence } from '../model/payout-outcome.js';
import { deliveryContext, holdOf, type PayoutRecord, type StoredDelivery } from '../model/payout-record.js';
import { payoutViewOf } from '../model/payout-view.js';
import { PayoutBatchRepository } from '../persistence/payout-batch.repository.js';
import { PayoutEvidenceRepository } from '../persistence/payout-evidence.repository.js';
import { PayoutOutcomeRepository } from '../persistence/payout-outcome.repository.js';
import { PayoutRepository } from '../persistence/payout.repository.js';
import { validDate } from './provider-answer.js';

/**
 * The moves PayoutOutcomesService makes under the payout's row lock, each with what follows it
 * in the same transaction: the guarded status update first, then the ledger movement (last: it
 * locks the vendor's account row), the webhook events and, where the provider's word disagrees
 * with ours, the reconciliation exception for staff.
 */
@Injectable()
export class PayoutStatusMoves {
  private readonly logger = new Logger(PayoutStatusMoves.name);

  constructor(
    private readonly ledger: PayoutLedgerService,
    private readonly payouts: PayoutRepository,
    private readonly records: PayoutOutcomeRepository,
    private readonly evidence: PayoutEvidenceRepository,
    private readonly batches: PayoutBatchRepository,
    private readonly encryption: FieldEncryption,
    private readonly exceptions: ReconciliationExceptionsService,
  ) {}

  /**
   * An answer about some other payment, or for another amount, is not evidence about ours: no
   * verdict, no money moved, the payout stays as it was and staff get an exception per
   * disagreement with both sides. The provider did answer with a payment, so a later "not found"
   * cannot release this payout automatically.
   */
  async refuseMismatched(
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
    return this.records.recordRefusedAnswer(manager, payout.id, fromSubmission);
  }

  /** The provider's word contradicts a status we hold: nothing moves, staff decide. */
  async raiseStatusConflict(manager: EntityManager, payout: PayoutRecord, providerSays: string, fromSubmission: boolean): Promise<void> {
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

  async raise(manager: EntityManager, payout: PayoutRecord, kind: ReconciliationExceptionKind, details: Record<string, unknown>): Promise<void> {
    await this.exceptions.raise(
      { domain: 'payout', kind, dedupeKey: `payout:${payout.id}:${kind}`, vendorId: payout.vendorId, payoutId: payout.id, provider: payout.method, details },
      manager,
    );
  }

  /** Appends one exchange to the payout's provider trail (append-only table). */
  async appendContact(manager: Pick<EntityManager, 'query'>, payoutId: string, fromSubmission: boolean, outcome: string, evidence: ProviderContactEvidence): Promise<void> {
    await this.evidence.appendContact(manager, {
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
  async recordContact(manager: EntityManager, payout: PayoutRecord, payment: PayoutProviderPayment, fromSubmission: boolean): Promise<PayoutRecord> {
    const written = await this.records.recordContact(manager, payout.id, payment.providerReference, fromSubmission);
    return { ...payout, ...written, notFoundStreak: 0 };
  }

  /** Contact, status and delivery in one statement, then the settlement (last: it locks the account row). */
  async markPaid(manager: EntityManager, payout: PayoutRecord, payment: PayoutProviderPayment, fromSubmission: boolean): Promise<PayoutRecord> {
    const paidAt = validDate(payment.paidAt) ?? new Date();
    const delivery = payment.delivery ? this.encryptDelivery(payout.id, payment.delivery.reveal()) : null;
    const updated = await this.records.markPaid(manager, payout.id, {
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

  async markFailed(manager: EntityManager, payout: PayoutRecord, reason: 'provider_rejected' | 'not_received_by_provider'): Promise<void> {
    if (!(await this.records.markFailed(manager, payout.id, reason))) return;
    await this.ledger.release(manager, payout.vendorId, holdOf(payout));
    await this.recordWebhookEvents(manager, payout.id, 'payout.failed');
  }

  /**
   * paid → reversed: amount + fee back to available (once: the ledger holds one `reverse` per
   * payout). A payout whose books were corrected after the fact (a `resettle`: staff were told to
   * recover the money from the vendor) raises `reversed_after_correction`, a new exception
   * whatever became of the first, so staff see that the money came back.
   */
  async markReversed(manager: EntityManager, payout: PayoutRecord, reversedAt: string | null, observation: PayoutObservation, raiseIfCorrected = true): Promise<void> {
    if (!(await this.records.markReversed(manager, payout.id, validDate(reversedAt) ?? new Date()))) return;
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
  async applyPaidAfterRelease(manager: EntityManager, payout: PayoutRecord, payment: PayoutProviderPayment, observation: PayoutObservation): Promise<PayoutRecord> {
    const paid = await this.records.markPaidAfterRelease(manager, payout.id, { paidAt: validDate(payment.paidAt) ?? new Date(), providerReference: payment.providerReference });
    if (!paid) return (await this.payouts.findForWorker(payout.id, manager))!;
    this.logger.error({ payoutId: payout.id, releasedAs: payout.statusReason, providerSays: payment.providerStatus, via: observation.via }, 'Provider proved paid a payout we released; re-debited');
    if (payment.delivery) await this.records.storeDelivery(manager, payout.id, this.encryptDelivery(payout.id, payment.delivery.reveal()));
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
  async recordWebhookEvents(manager: EntityManager, payoutId: string, type: PayoutWebhookEvent | null): Promise<void> {
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

  encryptDelivery(payoutId: string, delivery: PayoutDelivery): string {
    const stored: StoredDelivery = { pin: delivery.pin, serial: delivery.serial, instructions: delivery.instructions, expires_at: delivery.expiresAt };
    return this.encryption.encryptJson(stored, deliveryContext(payoutId));
  }
}
