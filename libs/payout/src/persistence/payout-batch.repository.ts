import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape, type Queryable } from '#database';
import { centsColumn } from '#money';
import { jobSpec, outboxRowsOfJobs } from '#queues';
import type { BatchRecord } from '../model/batch-view.js';
import { PAYOUT_REFERENCE_PATTERN } from '../model/payout-field-rules.js';

/** The `payout_batches` table as read; unqualified, so it serves RETURNING too. */
const BATCH = readShape<BatchRecord>({
  id: 'id', vendorId: 'vendor_id', reference: 'reference', requestFingerprint: ['request_fingerprint', (raw: string) => raw.trim()],
  itemCount: 'item_count', totalAmountCents: centsColumn('total_amount_cents'), totalFeeCents: centsColumn('total_fee_cents'),
  createdAt: ['created_at', (raw: Date) => new Date(raw)],
});

/** Batches (their items are payouts: PayoutRepository) and the outbox rows that start their items. */
@Injectable()
export class PayoutBatchRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findByReference(vendorId: string, reference: string): Promise<BatchRecord | null> {
    // Stored references all match the pattern; a path value that does not (a NUL byte) cannot exist.
    if (!PAYOUT_REFERENCE_PATTERN.test(reference)) return null;
    const rows: object[] = await this.dataSource.query(`SELECT ${BATCH.columns} FROM payout_batches WHERE vendor_id = $1 AND reference = $2`, [vendorId, reference]);
    return BATCH.first(rows);
  }

  /** The batch row, or null when the vendor already used the reference (a concurrent request won). */
  async insert(manager: Queryable, batch: Omit<BatchRecord, 'createdAt'>): Promise<BatchRecord | null> {
    const rows: object[] = await manager.query(
      `INSERT INTO payout_batches (id, vendor_id, reference, request_fingerprint, item_count, total_amount_cents, total_fee_cents)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (vendor_id, reference) DO NOTHING RETURNING ${BATCH.columns}`,
      [batch.id, batch.vendorId, batch.reference, batch.requestFingerprint, batch.itemCount, batch.totalAmountCents.toString(), batch.totalFeeCents.toString()],
    );
    return BATCH.first(rows);
  }

  /** The outbox rows of a batch's items in one statement (a batch is up to 500 jobs); job ids are deterministic from the payout ids. */
  async enqueueItems(manager: Queryable, payoutIds: readonly string[]): Promise<void> {
    const statement = outboxRowsOfJobs(
      'payout.batch-item',
      payoutIds.map((payoutId) => jobSpec('payout.batch-item', { payoutId })),
    );
    await manager.query(statement.text, statement.values);
  }

  /**
   * Locks the batch row for a status move of one of its items, so two items finishing at the
   * same time cannot both miss (or both write) `batch.completed`.
   */
  async lockForItemMove(manager: Queryable, batchId: string): Promise<BatchRecord> {
    const [row] = (await manager.query(`SELECT ${BATCH.columns} FROM payout_batches WHERE id = $1 FOR NO KEY UPDATE`, [batchId])) as object[];
    return BATCH.read(row);
  }
}
