import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '#common';
import { formatCents } from '#money';
import type { VendorPrincipal } from '#auth';
import { PayoutDeliveryService } from '../delivery/payout-delivery.service.js';
import { PayoutLedgerService } from '../ledger/payout-ledger.service.js';
import { batchViewOf, type BatchRecord, type BatchRequestInput, type BatchView } from '../model/batch-view.js';
import { holdOf, type PayoutRecord } from '../model/payout-record.js';
import { batchFingerprints, type PayoutRequestInput } from '../model/payout-request.js';
import { PayoutBatchRepository } from '../persistence/payout-batch.repository.js';
import type { NewPayout } from '../model/payout-record.js';
import { PayoutRepository } from '../persistence/payout.repository.js';
import type { AdmittedPayout } from '../model/payout-admission-rules.js';
import { batchHoldCents, batchValidationOf, type BatchValidation } from '../model/payout-validation.js';
import { PayoutAdmissionService } from './payout-admission.service.js';

class ItemReferenceRaceError extends Error {}

/**
 * A vendor's request for a batch of payouts (`POST /api/v1/batches`, its dry run `/validate`, the
 * dashboard's upload check) and the batch it made, read back: accepted or refused whole, its items
 * submitted by the worker.
 */
@Injectable()
export class PayoutBatchRequestService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly payouts: PayoutRepository,
    private readonly batches: PayoutBatchRepository,
    private readonly admission: PayoutAdmissionService,
    private readonly delivery: PayoutDeliveryService,
    private readonly ledger: PayoutLedgerService,
  ) {}

  /**
   * `POST /api/v1/batches`: the whole batch is validated, then inserted and reserved in ONE
   * transaction (one bad row or a balance that does not cover the total rejects everything and
   * reserves nothing). Each item gets an outbox job; the worker submits items one by one.
   */
  async createBatch(principal: VendorPrincipal, request: BatchRequestInput): Promise<{ batch: BatchView; replayed: boolean }> {
    const vendorId = principal.vendorId;
    const fingerprints = batchFingerprints(request.reference, request.payouts);
    const fingerprint = fingerprints.batch;
    const existing = await this.batches.findByReference(vendorId, request.reference);
    if (existing) return { batch: await this.replay(principal, existing, fingerprint), replayed: true };

    let admitted: AdmittedPayout[];
    try {
      admitted = await this.admission.admitAll(vendorId, request.payouts);
    } catch (error) {
      // A concurrent copy of this batch may have committed since we looked: its items now hold
      // our item references. The answer is then the replay a later copy would get, not a refusal.
      const committed = error instanceof ValidationFailedError ? await this.batches.findByReference(vendorId, request.reference) : null;
      if (committed) return { batch: await this.replay(principal, committed, fingerprint), replayed: true };
      throw error;
    }

    const batchId = randomUUID();
    const items: NewPayout[] = request.payouts.map((item, position) =>
      this.admission.newPayout(vendorId, item, admitted[position], fingerprints.items[position], {
        batchId,
        batchPosition: position,
        statusReason: 'queued',
        submissionStartedAt: null,
        nextPollAt: null,
      }),
    );
    const totalAmountCents = items.reduce((sum, item) => sum + item.amountCents, 0n);
    const totalFeeCents = items.reduce((sum, item) => sum + item.feeCents, 0n);

    let created: { batch: BatchRecord; items: PayoutRecord[] } | null;
    try {
      created = await this.dataSource.transaction(async (manager) => {
        const batch = await this.batches.insert(manager, {
          id: batchId,
          vendorId,
          reference: request.reference,
          requestFingerprint: fingerprint,
          itemCount: items.length,
          totalAmountCents,
          totalFeeCents,
        });
        if (!batch) return null;
        let stored: PayoutRecord[];
        try {
          stored = await this.payouts.insert(manager, items, false);
        } catch (error) {
          if ((error as { code?: string }).code === '23505') throw new ItemReferenceRaceError();
          throw error;
        }
        await this.batches.enqueueItems(
          manager,
          items.map((item) => item.id),
        );
        // Last: the reserve (amount + fee of every item) locks the vendor's account row until commit.
        await this.ledger.reserve(manager, vendorId, items.map(holdOf));
        return { batch, items: stored };
      });
    } catch (error) {
      // Another request took one of the item references between our check and our insert: a
      // concurrent copy of this batch (replayed), or another request (the references' errors).
      if (!(error instanceof ItemReferenceRaceError)) throw error;
      const committed = await this.batches.findByReference(vendorId, request.reference);
      if (committed) return { batch: await this.replay(principal, committed, fingerprint), replayed: true };
      throw new ValidationFailedError(await this.usedReferenceErrors(vendorId, request.payouts));
    }
    if (!created) return { batch: await this.replay(principal, (await this.batches.findByReference(vendorId, request.reference))!, fingerprint), replayed: true };
    // The batch as committed, from the rows the inserts returned: no read-back of 500 rows.
    return { batch: await this.viewOf(principal, created.batch, created.items), replayed: false };
  }

  /**
   * `POST /api/v1/batches/validate` (dry run): createBatch's checks, in its order, on what is
   * committed now (validation ran in the pipe, as for the real call): the batch reference (the
   * same payload answers what its replay would, another REFERENCE_CONFLICT), then admitAll, the
   * very step createBatch runs (readiness, every item's method rules, references repeated in the
   * request or already used, every problem keyed `payouts.{index}.{field}` in one answer), then
   * the funds for the whole batch with the reserve's rule (INSUFFICIENT_FUNDS, ACCOUNT_IN_DEBT).
   * Reads only: no batch or payout row, hold, ledger entry, outbox job, provider call or webhook.
   */
  async validateBatch(principal: VendorPrincipal, request: BatchRequestInput): Promise<BatchValidation> {
    const vendorId = principal.vendorId;
    const existing = await this.batches.findByReference(vendorId, request.reference);
    if (existing) {
      this.admission.assertSameRequest(existing.requestFingerprint, batchFingerprints(request.reference, request.payouts).batch);
      return batchValidationOf('replay', existing.reference, await this.payouts.listByBatch(vendorId, existing.id), null);
    }
    const admitted = await this.admission.admitAll(vendorId, request.payouts);
    const items = admitted.map((item, position) => ({ reference: request.payouts[position].reference, ...item }));
    return batchValidationOf('create', request.reference, items, await this.ledger.coveredBalance(vendorId, batchHoldCents(items)));
  }

  /**
   * The checks createBatch makes before it writes anything (vendor readiness, every item's
   * admission, duplicate and used references), without writing: the dashboard shows the
   * per-row errors of an uploaded file before the vendor submits it. createBatch checks again.
   */
  async checkBatch(vendorId: string, request: BatchRequestInput): Promise<{ totalAmount: string; totalFee: string; itemCount: number }> {
    const admitted = await this.admission.admitAll(vendorId, request.payouts);
    return {
      totalAmount: formatCents(admitted.reduce((sum, item) => sum + item.amountCents, 0n)),
      totalFee: formatCents(admitted.reduce((sum, item) => sum + item.feeCents, 0n)),
      itemCount: admitted.length,
    };
  }

  /** `GET /api/v1/batches/{reference}`. */
  async getBatch(principal: VendorPrincipal, reference: string): Promise<BatchView> {
    const batch = await this.batches.findByReference(principal.vendorId, reference);
    if (!batch) throw new NotFoundError('batch');
    return this.viewOf(principal, batch);
  }

  private async usedReferenceErrors(vendorId: string, items: readonly PayoutRequestInput[]): Promise<Record<string, string[]>> {
    const errors = await this.admission.usedReferenceErrors(vendorId, items);
    return Object.keys(errors).length > 0 ? errors : { payouts: ['an item reference was used by a concurrent request; retry'] };
  }

  private async replay(principal: VendorPrincipal, existing: BatchRecord, fingerprint: string): Promise<BatchView> {
    this.admission.assertSameRequest(existing.requestFingerprint, fingerprint);
    return this.viewOf(principal, existing);
  }

  private async viewOf(principal: VendorPrincipal, batch: BatchRecord, stored?: PayoutRecord[]): Promise<BatchView> {
    const items = stored ?? (await this.payouts.listByBatch(principal.vendorId, batch.id));
    return batchViewOf(batch, items, await this.delivery.embeddable(principal, items, 'batch_response'));
  }
}
