import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PayoutStaffItem } from '../model/payout-evidence.js';
import { STAFF_ITEM, statusLiteral } from './payout-shapes.js';

/** Staff's read models of payouts (the back-office review queue, one item, the search): across vendors. */
@Injectable()
export class PayoutStaffRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Payouts waiting in `needs_review`, oldest first (partial index of migration 1763781300000, hence the literal status). */
  async reviewQueue(limit: number): Promise<PayoutStaffItem[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${STAFF_ITEM.columns} FROM payouts p JOIN vendors v ON v.id = p.vendor_id
        WHERE p.status = ${statusLiteral('needs_review').sql} ORDER BY COALESCE(p.review_at, p.created_at), p.id LIMIT $1`,
      [limit],
    );
    return rows.map(STAFF_ITEM.read);
  }

  /** How many payouts wait in `needs_review` and how long the oldest has (seconds; 0 when none). */
  async reviewDepth(): Promise<{ count: number; oldestAgeSeconds: number }> {
    const [row] = await this.dataSource.query(
      `SELECT count(*)::int AS count, COALESCE(EXTRACT(EPOCH FROM now() - min(COALESCE(review_at, created_at))), 0)::float8 AS oldest
         FROM payouts WHERE status = ${statusLiteral('needs_review').sql}`,
    );
    return { count: row.count, oldestAgeSeconds: Math.max(0, Math.floor(row.oldest)) };
  }

  async staffItem(payoutId: string): Promise<PayoutStaffItem | null> {
    const rows: object[] = await this.dataSource.query(`SELECT ${STAFF_ITEM.columns} FROM payouts p JOIN vendors v ON v.id = p.vendor_id WHERE p.id = $1`, [payoutId]);
    return STAFF_ITEM.first(rows);
  }

  /** The back-office search, across vendors: the payout with this id and those whose reference starts so (a LIKE pattern), newest first. */
  async staffSearch(id: string | null, referencePattern: string, limit: number): Promise<PayoutStaffItem[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${STAFF_ITEM.columns} FROM payouts p JOIN vendors v ON v.id = p.vendor_id
        WHERE p.id = $1::uuid OR p.reference LIKE $2 ESCAPE '\\' ORDER BY p.created_at DESC, p.id DESC LIMIT $3`,
      [id, referencePattern, limit],
    );
    return rows.map(STAFF_ITEM.read);
  }
}
