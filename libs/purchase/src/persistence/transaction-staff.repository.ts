import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape, type Queryable } from '#database';
import { centsColumn } from '#money';
import type { PurchaseStaffEvent, PurchaseStaffItem } from '../model/transaction-record.js';

/** A purchase as staff see it: `t` is the transaction, `v` its vendor. */
const STAFF_ITEM = readShape<PurchaseStaffItem>({
  id: 't.id', vendorId: 't.vendor_id', vendorName: 'v.name', reference: 't.reference', status: 't.status', productId: 't.product_id',
  chargeCents: centsColumn('t.charge_cents::text'), currency: 't.currency', errorCode: 't.error_code', createdAt: 't.created_at',
  waitingSince: 'COALESCE(t.review_at, t.created_at)', submissionAttemptedAt: 't.submission_attempted_at', submissionEndedAt: 't.submission_ended_at',
  submissionOutcome: 't.submission_outcome', providerTransactionId: 't.provider_transaction_id::text', providerStatus: 't.provider_status',
  lastCheckedAt: 't.last_checked_at', notFoundStreak: 't.not_found_streak',
});

/** Read models for staff (the back-office): the review queue, a purchase's page and the search, across vendors. */
@Injectable()
export class TransactionStaffRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Purchases waiting in `review`, oldest first (partial index of migration 1763781300000). */
  async reviewQueue(limit: number): Promise<PurchaseStaffItem[]> {
    const rows = await this.dataSource.query<object[]>(
      `SELECT ${STAFF_ITEM.columns} FROM purchase_transactions t JOIN vendors v ON v.id = t.vendor_id
        WHERE t.status = 'review' ORDER BY COALESCE(t.review_at, t.created_at), t.id LIMIT $1`,
      [limit],
    );
    return rows.map(STAFF_ITEM.read);
  }

  /** How many purchases wait in `review` and how long the oldest has (seconds; 0 when none). */
  async reviewDepth(): Promise<{ count: number; oldestAgeSeconds: number }> {
    const [row] = await this.dataSource.query<{ count: number; oldest: number }[]>(
      `SELECT count(*)::int AS count, COALESCE(EXTRACT(EPOCH FROM now() - min(COALESCE(review_at, created_at))), 0)::float8 AS oldest
         FROM purchase_transactions WHERE status = 'review'`,
    );
    return { count: row.count, oldestAgeSeconds: Math.max(0, Math.floor(row.oldest)) };
  }

  async staffItem(transactionId: string, manager: Queryable = this.dataSource): Promise<PurchaseStaffItem | undefined> {
    const rows = await manager.query<object[]>(`SELECT ${STAFF_ITEM.columns} FROM purchase_transactions t JOIN vendors v ON v.id = t.vendor_id WHERE t.id = $1`, [
      transactionId,
    ]);
    return STAFF_ITEM.first(rows) ?? undefined;
  }

  /**
   * The back-office search, across vendors: the purchase with this id (`id`, a UUID or null) and
   * those whose reference starts with `referencePattern` (a LIKE pattern, backslash escaping; the
   * text_pattern_ops index of migration 1763783600000), newest first.
   */
  async staffSearch(id: string | null, referencePattern: string, limit: number): Promise<PurchaseStaffItem[]> {
    const rows = await this.dataSource.query<object[]>(
      `SELECT ${STAFF_ITEM.columns} FROM purchase_transactions t JOIN vendors v ON v.id = t.vendor_id
        WHERE t.id = $1::uuid OR t.reference LIKE $2 ESCAPE '\\' ORDER BY t.created_at DESC, t.id DESC LIMIT $3`,
      [id, referencePattern, limit],
    );
    return rows.map(STAFF_ITEM.read);
  }

  /** Every recorded status move of a transaction with the provider's status behind it, oldest first. */
  async staffHistory(transactionId: string): Promise<PurchaseStaffEvent[]> {
    return this.dataSource.query<PurchaseStaffEvent[]>(
      `SELECT from_status, to_status, provider_status, reason, created_at FROM purchase_transaction_events WHERE transaction_id = $1 ORDER BY id`,
      [transactionId],
    );
  }
}
