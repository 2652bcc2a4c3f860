import { Injectable } from '@nestjs/common';
import { FieldEncryption } from '#common';
import { GatewayEnv } from '#config';
import type { VendorPrincipal } from '#auth';
import { PayoutDeliveryService } from '../delivery/payout-delivery.service.js';
import { PayoutLedgerService } from '../ledger/payout-ledger.service.js';
import { PayoutPollSchedule } from '../model/payout-poll-schedule.js';
import { recipientContext, type DeliveryReadChannel, type PayoutRecord } from '../model/payout-record.js';
import { PayoutRejectedError } from '../model/payout-errors.js';
import { payoutValidationOf, type PayoutValidation } from '../model/payout-validation.js';
import { payoutFingerprint, type PayoutRequestInput, type StoredRecipient } from '../model/payout-request.js';
import { payoutViewOf, type PayoutView } from '../model/payout-view.js';
import { maskedRecipientOf, type MaskedRecipientView } from '../model/recipient-mask.js';
import { PAYOUT_ANSWERED_CHANNEL, PayoutAnswerSignals } from '../persistence/payout-answer-signals.js';
import { PayoutRepository } from '../persistence/payout.repository.js';
import { PayoutSubmissionService } from '../submission/payout-submission.service.js';
import { PayoutAdmissionService } from './payout-admission.service.js';

/** The provider refused the payout (failed for any other reason, it is answered as the payout). */
const rejectedByProvider = (payout: PayoutRecord) => payout.status === 'failed' && payout.statusReason === 'provider_rejected';

/** How long a replay waits, beyond the provider timeout, for the verdict of a submission still in flight. */
const REPLAY_WAIT_MARGIN_MS = 1_000;

/**
 * A vendor's request for one payout (`POST /api/v1/payouts`, its dry run `/validate`) and the
 * payout it made, read back: unlike a batch item, it is submitted within the request.
 */
@Injectable()
export class PayoutRequestService {
  constructor(
    private readonly payouts: PayoutRepository,
    private readonly admission: PayoutAdmissionService,
    private readonly submitter: PayoutSubmissionService,
    private readonly schedule: PayoutPollSchedule,
    private readonly delivery: PayoutDeliveryService,
    private readonly config: GatewayEnv,
    private readonly signals: PayoutAnswerSignals,
    private readonly ledger: PayoutLedgerService,
    private readonly encryption: FieldEncryption,
  ) {}

  /**
   * `POST /api/v1/payouts/validate` (dry run): createPayout's checks, in its order, on what is
   * committed now (validation ran in the pipe, as for the real call): the reference (a replay
   * answers what the replay would, REFERENCE_CONFLICT or PROVIDER_REJECTED included), readiness,
   * the method rules, then the funds for amount plus fee (INSUFFICIENT_FUNDS, ACCOUNT_IN_DEBT).
   * Reads only: no row, hold, ledger entry, provider call or webhook event. A real call made
   * afterwards can still be refused if the balance or the limits change in between.
   */
  async validatePayout(principal: VendorPrincipal, request: PayoutRequestInput): Promise<PayoutValidation> {
    const vendorId = principal.vendorId;
    const snapshot = await this.admission.snapshotFor(vendorId, request.reference);
    if (snapshot.existing) {
      this.admission.assertSameRequest(snapshot.existing.requestFingerprint, payoutFingerprint(request));
      if (rejectedByProvider(snapshot.existing)) throw new PayoutRejectedError();
      return payoutValidationOf('replay', snapshot.existing, null);
    }
    const admitted = this.admission.admitFromSnapshot(snapshot, request);
    const hold = admitted.amountCents + admitted.feeCents;
    const availableCents = await this.ledger.coveredBalance(vendorId, hold);
    return payoutValidationOf('create', { reference: request.reference, ...admitted }, availableCents - hold);
  }

  /**
   * `POST /api/v1/payouts`. Phase 1 commits the payout (`pending`), its hold, the submission
   * marker and the first status poll; phase 2 calls the provider; phase 3 records the verdict.
   * The same reference and payload replays the stored payout (waiting briefly for a verdict
   * still in flight) without another provider call; a different payload is REFERENCE_CONFLICT.
   * `replayed` tells the controller to answer `Idempotent-Replayed: true`, as purchase replays do.
   *
   * A provider refusal is not answered as a payout: the payout is recorded `failed`
   * (`provider_rejected`) with its hold released, and the request answers PROVIDER_REJECTED
   * (the contract's code for "the provider refuses the payout"); so does every replay of it.
   *
   * Statements: one read before admission (readiness, method policies and the reference), one
   * self-committing statement for phase 1, and for a "paid" answer one transaction of one
   * statement for phase 3 that also sends the NOTIFY for waiting replays and audits the
   * delivery the response embeds; the response is built from what those statements returned.
   */
  async createPayout(principal: VendorPrincipal, request: PayoutRequestInput): Promise<{ payout: PayoutView; replayed: boolean }> {
    const vendorId = principal.vendorId;
    const fingerprint = payoutFingerprint(request);
    const snapshot = await this.admission.snapshotFor(vendorId, request.reference);
    if (snapshot.existing) return { payout: await this.replay(principal, snapshot.existing, fingerprint), replayed: true };

    const admitted = this.admission.admitFromSnapshot(snapshot, request);

    const submittedAt = new Date();
    const row = this.admission.newPayout(vendorId, request, admitted, fingerprint, {
      batchId: null,
      batchPosition: null,
      statusReason: 'submitting',
      submissionStartedAt: submittedAt,
      nextPollAt: this.schedule.firstPollAt(submittedAt),
    });
    const inserted = await this.admission.insertReserved(row);
    // A concurrent request with this reference committed first: replay it.
    if (!inserted) return { payout: await this.replay(principal, (await this.payouts.findByReference(vendorId, request.reference))!, fingerprint), replayed: true };

    const channel: DeliveryReadChannel = 'payout_response';
    const verdict = await this.submitter.submitAndRecord(inserted, {
      notifyChannel: PAYOUT_ANSWERED_CHANNEL,
      deliveryRead: this.delivery.auditIfPaid(principal, admitted.method, channel),
    });
    const recorded = verdict.payout ?? (await this.payouts.findByReference(vendorId, request.reference))!;
    if (verdict.followedUp) return { payout: payoutViewOf(recorded, this.delivery.embeddedAudited(principal, recorded)), replayed: false };
    // Replays of this request waiting for its verdict (in any gateway process) read it now.
    await this.signals.announce(row.id);
    if (rejectedByProvider(recorded)) throw new PayoutRejectedError();
    return { payout: await this.viewOf(principal, recorded, channel), replayed: false };
  }

  /** `GET /api/v1/payouts/{reference}`: the current payout; never submits anything. */
  async getPayout(principal: VendorPrincipal, reference: string): Promise<PayoutView> {
    const payout = await this.payouts.requireByReference(principal.vendorId, reference);
    return this.viewOf(principal, payout, 'payout_response');
  }

  /**
   * The vendor's payout with its recipient masked (`maskedRecipientOf`): the clear recipient is
   * decrypted here and never leaves this method. Not a delivery read: no codes, nothing audited.
   */
  async getPayoutWithRecipient(principal: VendorPrincipal, reference: string): Promise<{ payout: PayoutView; recipient: MaskedRecipientView }> {
    const payout = await this.payouts.requireByReference(principal.vendorId, reference);
    const recipient = this.encryption.decryptJson<StoredRecipient>(payout.recipientEncrypted, recipientContext(payout.id));
    return { payout: await this.viewOf(principal, payout, 'payout_response'), recipient: maskedRecipientOf(recipient) };
  }

  private async replay(principal: VendorPrincipal, existing: PayoutRecord, fingerprint: string): Promise<PayoutView> {
    this.admission.assertSameRequest(existing.requestFingerprint, fingerprint);
    const answered = await this.awaitSubmissionAnswer(existing);
    // The stored result of a refused payout is the refusal: the same answer as the original request.
    if (rejectedByProvider(answered)) throw new PayoutRejectedError();
    return this.viewOf(principal, answered, 'payout_response');
  }

  /**
   * A replay racing the original request answers with the original's verdict, not a transient
   * `submitting`: the contract's replay of the stored result, once there is one. It waits on the
   * original's announcement (LISTEN/NOTIFY, see PayoutAnswerSignals), reading the payout only
   * before waiting and when woken; after the provider timeout plus a margin (the original died)
   * it answers the payout as it stands, pending.
   */
  private async awaitSubmissionAnswer(payout: PayoutRecord): Promise<PayoutRecord> {
    const inFlight = (current: PayoutRecord) => current.status === 'pending' && current.submissionStartedAt !== null && current.submissionAnsweredAt === null;
    if (!inFlight(payout)) return payout;
    const deadline = payout.submissionStartedAt!.getTime() + this.config.PAYOUT_PROVIDER_TIMEOUT_MS + REPLAY_WAIT_MARGIN_MS;
    return this.signals.waitFor(
      payout.id,
      deadline,
      async () => (await this.payouts.findByReference(payout.vendorId, payout.reference)) ?? payout,
      (current) => !inFlight(current),
    );
  }

  private async viewOf(principal: VendorPrincipal, payout: PayoutRecord, channel: DeliveryReadChannel): Promise<PayoutView> {
    const deliveries = await this.delivery.embeddable(principal, [payout], channel);
    return payoutViewOf(payout, deliveries.get(payout.id) ?? null);
  }
}
