import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Cents } from '#money';
import { PAYOUT_REFERENCE_PATTERN } from '../model/payout-field-rules.js';
import { PAYOUT_COLUMNS, payoutRecordOf, type PayoutRecord, type PayoutRow } from '../model/payout-record.js';

export interface NewPayout {
  id: string;
  vendorId: string;
  reference: string;
  batchId: string | null;
  batchPosition: number | null;
  method: string;
  amountCents: Cents;
  feeCents: Cents;
  merchantReference: string;
  recipientEncrypted: string;
  metadata: Record<string, unknown> | null;
  requestFingerprint: string;
  statusReason: string;
  /** Set for single payouts, whose provider call follows the commit at once; batch items get it when their job claims them. */
  submissionStartedAt: Date | null;
  nextPollAt: Date | null;
}

/** Payout ids are UUIDs; anything else named by a job cannot exist and never reaches SQL. */
export const PAYOUT_ID_PATTERN = /^[0-9a-f-]{36}$/i;

/**
 * Payout rows. Every vendor-facing read takes the vendorId, so a query cannot forget the tenant;
 * the worker's reads by id are named for the worker (jobs carry only our own ids).
 */
@Injectable()
export class PayoutRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findByReference(vendorId: string, reference: string, manager: EntityManager = this.dataSource.manager): Promise<PayoutRecord | null> {
    // Every stored reference matched the pattern; anything else (a NUL byte, 5 KB of text) cannot exist and never reaches SQL.
    if (!PAYOUT_REFERENCE_PATTERN.test(reference)) return null;
    const rows: PayoutRow[] = await manager.query(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE vendor_id = $1 AND reference = $2`, [vendorId, reference]);
    return rows.length > 0 ? payoutRecordOf(rows[0]) : null;
  }

  async listByBatch(vendorId: string, batchId: string): Promise<PayoutRecord[]> {
    const rows: PayoutRow[] = await this.dataSource.query(
      `SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE vendor_id = $1 AND batch_id = $2 ORDER BY batch_position`,
      [vendorId, batchId],
    );
    return rows.map(payoutRecordOf);
  }

  /** References among `references` the vendor already used. */
  async usedReferences(vendorId: string, references: readonly string[]): Promise<Set<string>> {
    const rows: Array<{ reference: string }> = await this.dataSource.query(`SELECT reference FROM payouts WHERE vendor_id = $1 AND reference = ANY($2::text[])`, [
      vendorId,
      references,
    ]);
    return new Set(rows.map((row) => row.reference));
  }

  /** Worker only: a job names a payout by id. Null for an id this database does not hold. */
  async findForWorker(payoutId: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<PayoutRecord | null> {
    if (!PAYOUT_ID_PATTERN.test(payoutId)) return null;
    const rows: PayoutRow[] = await manager.query(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [payoutId]);
    return rows.length > 0 ? payoutRecordOf(rows[0]) : null;
  }

  /**
   * One INSERT for any number of payouts (arrays unnested server-side, so a 500-item batch is
   * one round trip), answering the stored rows in the order given. With `skipExistingReference`,
   * a reference the vendor already used inserts nothing and is missing from the result (a
   * concurrent request won).
   */
  async insert(manager: EntityManager, payouts: readonly NewPayout[], skipExistingReference: boolean): Promise<PayoutRecord[]> {
    const column = <T>(pick: (payout: NewPayout) => T) => payouts.map(pick);
    const rows: PayoutRow[] = await manager.query(
      `INSERT INTO payouts (id, vendor_id, reference, batch_id, batch_position, method, amount_cents, fee_cents, status, status_reason,
                            merchant_reference, recipient_encrypted, metadata, request_fingerprint, submission_started_at, next_poll_at)
       SELECT t.id, t.vendor_id, t.reference, t.batch_id, t.batch_position, t.method, t.amount_cents, t.fee_cents, 'pending', t.status_reason,
              t.merchant_reference, t.recipient_encrypted, t.metadata, t.request_fingerprint, t.submission_started_at, t.next_poll_at
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::int[], $6::text[], $7::bigint[], $8::bigint[], $9::text[],
                     $10::text[], $11::text[], $12::jsonb[], $13::text[], $14::timestamptz[], $15::timestamptz[])
           AS t(id, vendor_id, reference, batch_id, batch_position, method, amount_cents, fee_cents, status_reason,
                merchant_reference, recipient_encrypted, metadata, request_fingerprint, submission_started_at, next_poll_at)
       ${skipExistingReference ? 'ON CONFLICT (vendor_id, reference) DO NOTHING' : ''}
       RETURNING ${PAYOUT_COLUMNS}`,
      [
        column((p) => p.id),
        column((p) => p.vendorId),
        column((p) => p.reference),
        column((p) => p.batchId),
        column((p) => p.batchPosition),
        column((p) => p.method),
        column((p) => p.amountCents.toString()),
        column((p) => p.feeCents.toString()),
        column((p) => p.statusReason),
        column((p) => p.merchantReference),
        column((p) => p.recipientEncrypted),
        column((p) => JSON.stringify(p.metadata)),
        column((p) => p.requestFingerprint),
        column((p) => p.submissionStartedAt),
        column((p) => p.nextPollAt),
      ],
    );
    const position = new Map(payouts.map((payout, index) => [payout.id, index]));
    return rows.map(payoutRecordOf).sort((a, b) => position.get(a.id)! - position.get(b.id)!);
  }
}
