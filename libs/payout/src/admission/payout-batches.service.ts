import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { FieldEncryption, NotFoundError, ValidationFailedError } from '#common';
import { centsFromDbValue, formatCents } from '#money';
import { VendorService, type VendorPrincipal } from '#auth';
import { jobSpec, outboxBindValues, outboxRowsFrom } from '#queues';
import { PayoutDeliveryService } from '../delivery/payout-delivery.service.js';
import { PayoutLedger } from '../ledger/payout-ledger.js';
import { PayoutMethodsService } from '../methods/payout-methods.service.js';
import { ReferenceConflictError } from '../model/payout-errors.js';
import { PayoutReadiness } from '../model/payout-readiness.js';
import { admissionErrorOf, admitPayout, type AdmissionProblem, type AdmittedPayout } from '../model/payout-admission-rules.js';
import { holdOf, recipientContext, type PayoutRecord } from '../model/payout-record.js';
import { batchFingerprints, storedMetadataOf, storedRecipientOf, type PayoutRequestInput } from '../model/payout-request.js';
import { payoutViewOf, type PayoutView } from '../model/payout-view.js';
import { PayoutRepository, type NewPayout } from '../persistence/payout.repository.js';
import { merchantReferenceOf } from './payouts.service.js';
import { PAYOUT_REFERENCE_PATTERN } from '../model/payout-field-rules.js';
import { batchStatusOf, type BatchStatus } from '../model/batch-status.js';

export const MAX_BATCH_ITEMS = 500;

export interface BatchRequestInput {
  reference: string;
  payouts: PayoutRequestInput[];
}

/** Batch (payout contract). */
export interface BatchView {
  id: string;
  reference: string;
  status: BatchStatus;
  total_amount: string;
  total_fee: string;
  item_count: number;
  payouts: PayoutView[];
  created_at: string;
  currency: 'ZAR';
}

interface BatchRow {
  id: string;
  vendor_id: string;
  reference: string;
  request_fingerprint: string;
  item_count: number;
  total_amount_cents: string;
  total_fee_cents: string;
  created_at: Date;
}

const BATCH_COLUMNS = 'id, vendor_id, reference, request_fingerprint, item_count, total_amount_cents, total_fee_cents, created_at';

class ItemReferenceRaceError extends Error {}

@Injectable()
export class PayoutBatchesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly payouts: PayoutRepository,
    private readonly methods: PayoutMethodsService,
    private readonly ledger: PayoutLedger,
    private readonly encryption: FieldEncryption,
    private readonly vendors: VendorService,
    private readonly readiness: PayoutReadiness,
    private readonly delivery: PayoutDeliveryService,
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
    const existing = await this.findBatch(vendorId, request.reference);
    if (existing) return { batch: await this.replay(principal, existing, fingerprint), replayed: true };

    this.readiness.assertCanMovePayouts(await this.vendors.get(vendorId));
    const admitted = await this.admitItems(vendorId, request.payouts);

    const batchId = randomUUID();
    const items: NewPayout[] = request.payouts.map((item, position) => {
      const id = randomUUID();
      return {
        id,
        vendorId,
        reference: item.reference,
        batchId,
        batchPosition: position,
        method: admitted[position].method,
        amountCents: admitted[position].amountCents,
        feeCents: admitted[position].feeCents,
        merchantReference: merchantReferenceOf(id),
        recipientEncrypted: this.encryption.encryptJson(storedRecipientOf(item.recipient), recipientContext(id)),
        metadata: storedMetadataOf(item.metadata),
        requestFingerprint: fingerprints.items[position],
        statusReason: 'queued',
        submissionStartedAt: null,
        nextPollAt: null,
      };
    });
    const totalAmount = items.reduce((sum, item) => sum + item.amountCents, 0n);
    const totalFee = items.reduce((sum, item) => sum + item.feeCents, 0n);

    let created: { batch: BatchRow; items: PayoutRecord[] } | null;
    try {
      created = await this.dataSource.transaction(async (manager) => {
        const inserted: BatchRow[] = await manager.query(
          `INSERT INTO payout_batches (id, vendor_id, reference, request_fingerprint, item_count, total_amount_cents, total_fee_cents)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (vendor_id, reference) DO NOTHING RETURNING ${BATCH_COLUMNS}`,
          [batchId, vendorId, request.reference, fingerprint, items.length, totalAmount.toString(), totalFee.toString()],
        );
        if (inserted.length === 0) return null;
        let stored: PayoutRecord[];
        try {
          stored = await this.payouts.insert(manager, items, false);
        } catch (error) {
          if ((error as { code?: string }).code === '23505') throw new ItemReferenceRaceError();
          throw error;
        }
        await enqueueBatchItems(manager, items.map((item) => item.id));
        // Last: the reserve locks the vendor's account row until commit.
        await this.ledger.reserve(manager, vendorId, items.map(holdOf));
        return { batch: inserted[0], items: stored };
      });
    } catch (error) {
      // Another request took one of the item references between our check and our insert.
      if (error instanceof ItemReferenceRaceError) throw new ValidationFailedError(await this.usedReferenceErrors(vendorId, request.payouts));
      throw error;
    }
    if (!created) return { batch: await this.replay(principal, (await this.findBatch(vendorId, request.reference))!, fingerprint), replayed: true };
    // The batch as committed, from the rows the inserts returned: no read-back of 500 rows.
    return { batch: await this.viewOf(principal, created.batch, created.items), replayed: false };
  }

  /**
   * The checks createBatch makes before it writes anything (vendor readiness, every item's
   * admission, duplicate and used references), without writing: the dashboard shows the
   * per-row errors of an uploaded file before the vendor submits it. createBatch checks again.
   */
  async checkBatch(vendorId: string, request: BatchRequestInput): Promise<{ totalAmount: string; totalFee: string; itemCount: number }> {
    this.readiness.assertCanMovePayouts(await this.vendors.get(vendorId));
    const admitted = await this.admitItems(vendorId, request.payouts);
    return {
      totalAmount: formatCents(admitted.reduce((sum, item) => sum + item.amountCents, 0n)),
      totalFee: formatCents(admitted.reduce((sum, item) => sum + item.feeCents, 0n)),
      itemCount: admitted.length,
    };
  }

  /** `GET /api/v1/batches/{reference}`. */
  async getBatch(principal: VendorPrincipal, reference: string): Promise<BatchView> {
    const batch = await this.findBatch(principal.vendorId, reference);
    if (!batch) throw new NotFoundError('batch');
    return this.viewOf(principal, batch);
  }

  private async admitItems(vendorId: string, items: readonly PayoutRequestInput[]): Promise<AdmittedPayout[]> {
    const policies = await this.methods.policiesFor(vendorId);
    const problems: AdmissionProblem[] = [];
    const admitted: AdmittedPayout[] = [];
    const firstIndexOf = new Map<string, number>();
    items.forEach((item, index) => {
      const result = admitPayout(item, policies, `payouts.${index}.`);
      problems.push(...result.problems);
      if (result.admitted) admitted.push(result.admitted);
      const first = firstIndexOf.get(item.reference);
      if (first !== undefined) {
        problems.push({ field: `payouts.${index}.reference`, message: `reference duplicates payouts.${first}.reference`, kind: 'validation' });
      } else {
        firstIndexOf.set(item.reference, index);
      }
    });
    const used = await this.payouts.usedReferences(
      vendorId,
      items.map((item) => item.reference),
    );
    items.forEach((item, index) => {
      if (used.has(item.reference)) problems.push({ field: `payouts.${index}.reference`, message: 'reference was already used by another payout', kind: 'validation' });
    });
    if (problems.length > 0) throw admissionErrorOf(problems);
    return admitted;
  }

  private async usedReferenceErrors(vendorId: string, items: readonly PayoutRequestInput[]): Promise<Record<string, string[]>> {
    const used = await this.payouts.usedReferences(
      vendorId,
      items.map((item) => item.reference),
    );
    const errors: Record<string, string[]> = {};
    items.forEach((item, index) => {
      if (used.has(item.reference)) errors[`payouts.${index}.reference`] = ['reference was already used by another payout'];
    });
    return Object.keys(errors).length > 0 ? errors : { payouts: ['an item reference was used by a concurrent request; retry'] };
  }

  private async replay(principal: VendorPrincipal, existing: BatchRow, fingerprint: string): Promise<BatchView> {
    if (existing.request_fingerprint.trim() !== fingerprint) throw new ReferenceConflictError();
    return this.viewOf(principal, existing);
  }

  private async findBatch(vendorId: string, reference: string): Promise<BatchRow | null> {
    // Stored references all match the pattern; a path value that does not (a NUL byte) cannot exist.
    if (!PAYOUT_REFERENCE_PATTERN.test(reference)) return null;
    const rows: BatchRow[] = await this.dataSource.query(
      `SELECT ${BATCH_COLUMNS} FROM payout_batches WHERE vendor_id = $1 AND reference = $2`,
      [vendorId, reference],
    );
    return rows[0] ?? null;
  }

  private async viewOf(principal: VendorPrincipal, batch: BatchRow, stored?: PayoutRecord[]): Promise<BatchView> {
    const items = stored ?? (await this.payouts.listByBatch(principal.vendorId, batch.id));
    const deliveries = await this.delivery.embeddable(principal, items, 'batch_response');
    return {
      id: batch.id,
      reference: batch.reference,
      status: batchStatusOf(items.map((item) => item.status)),
      total_amount: formatCents(centsFromDbValue(batch.total_amount_cents)),
      total_fee: formatCents(centsFromDbValue(batch.total_fee_cents)),
      item_count: batch.item_count,
      payouts: items.map((item) => payoutViewOf(item, deliveries.get(item.id) ?? null)),
      created_at: batch.created_at.toISOString(),
      currency: 'ZAR',
    };
  }
}

/** The outbox rows of a batch's items in one statement (a batch is up to 500 jobs); job ids are deterministic from the payout ids. */
async function enqueueBatchItems(manager: EntityManager, payoutIds: readonly string[]): Promise<void> {
  const rows = payoutIds.map((payoutId) => outboxBindValues(jobSpec('payout.batch-item', { payoutId })));
  await manager.query(
    outboxRowsFrom('unnest($1::text[], $2::text[]) AS t(job_id, payload)', 'payout.batch-item', { id: 't.job_id', payload: 't.payload', runAt: 'now()' }),
    [rows.map(([id]) => id), rows.map(([, payload]) => payload)],
  );
}
