import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape } from '#database';
import { centsColumn } from '#money';
import type { BatchListItem, PayoutListLine } from '../model/payout-list-item.js';
import type { PayoutMethod } from '../model/payout-method-catalogue.js';
import type { PayoutStatus } from '../model/payout-status.js';
import type { InstantRange } from './statement.repository.js';

export interface PayoutListFilter {
  range: InstantRange;
  status?: PayoutStatus;
  method?: PayoutMethod;
  referencePrefix?: string;
  batchReference?: string;
}

export interface BatchListFilter {
  range: InstantRange;
  referencePrefix?: string;
}


/** Newest first for the lists, oldest first for the exports. */
export type ListOrder = 'desc' | 'asc';

/** A payout as its view shows it (`p`), with its batch (`b`). */
const PAYOUT_LINE = readShape<PayoutListLine>({
  id: 'p.id', reference: 'p.reference', status: 'p.status', statusReason: 'p.status_reason', method: 'p.method',
  amountCents: centsColumn('p.amount_cents'), feeCents: centsColumn('p.fee_cents'), merchantReference: 'p.merchant_reference',
  providerReference: 'p.provider_reference', metadata: 'p.metadata', createdAt: 'p.created_at', paidAt: 'p.paid_at',
  batchId: 'p.batch_id', batchPosition: 'p.batch_position', batchReference: 'b.reference',
});

const direction = (order: ListOrder) => ({ sql: order === 'desc' ? 'DESC' : 'ASC', after: order === 'desc' ? '<' : '>' });

/** A batch with its items' statuses, from which its status is derived (`b`). */
const BATCH_ITEM = readShape<BatchListItem>({
  id: 'b.id', reference: 'b.reference', itemCount: 'b.item_count', totalAmountCents: centsColumn('b.total_amount_cents'),
  totalFeeCents: centsColumn('b.total_fee_cents'), createdAt: 'b.created_at',
  itemStatuses: `ARRAY(SELECT i.status FROM payouts i WHERE i.batch_id = b.id ORDER BY i.batch_position)`,
});

/** `created_at` in the range (`$first`, `$first + 1`, null = open) for table alias `t`. */
const inRange = (t: string, first: number) =>
  `($${first}::timestamptz IS NULL OR ${t}.created_at >= $${first}::timestamptz) AND ($${first + 1}::timestamptz IS NULL OR ${t}.created_at < $${first + 1}::timestamptz)`;

/**
 * The vendor's payout and batch lists, newest first, keyset-paged on (created_at, id): the cursor
 * is the last row's id, whose exact time the query reads back (a JavaScript Date would lose the
 * microseconds). A cursor id that is not the vendor's row of that list starts nowhere (empty page).
 */
@Injectable()
export class PayoutListRepository {
  constructor(private readonly dataSource: DataSource) {}

  async payouts(vendorId: string, filter: PayoutListFilter, afterId: string | null, limit: number, order: ListOrder = 'desc'): Promise<PayoutListLine[]> {
    const { sql, after } = direction(order);
    const rows: object[] = await this.dataSource.query(
      `SELECT ${PAYOUT_LINE.columns} FROM payouts p LEFT JOIN payout_batches b ON b.id = p.batch_id
        WHERE p.vendor_id = $1 AND ${inRange('p', 2)}
          AND ($4::text IS NULL OR p.status = $4) AND ($5::text IS NULL OR p.method = $5)
          AND ($6::text IS NULL OR left(p.reference, length($6)) = $6)
          AND ($7::text IS NULL OR p.batch_id = (SELECT id FROM payout_batches WHERE vendor_id = $1 AND reference = $7))
          AND ($8::uuid IS NULL OR (p.created_at, p.id) ${after} (SELECT c.created_at, c.id FROM payouts c WHERE c.id = $8 AND c.vendor_id = $1))
        ORDER BY p.created_at ${sql}, p.id ${sql} LIMIT $9`,
      [vendorId, filter.range.start, filter.range.endExclusive, filter.status ?? null, filter.method ?? null, filter.referencePrefix ?? null, filter.batchReference ?? null, afterId, limit],
    );
    return rows.map(PAYOUT_LINE.read);
  }

  async batches(vendorId: string, filter: BatchListFilter, afterId: string | null, limit: number, order: ListOrder = 'desc'): Promise<BatchListItem[]> {
    const { sql, after } = direction(order);
    const rows: object[] = await this.dataSource.query(
      `SELECT ${BATCH_ITEM.columns} FROM payout_batches b
        WHERE b.vendor_id = $1 AND ${inRange('b', 2)}
          AND ($4::text IS NULL OR left(b.reference, length($4)) = $4)
          AND ($5::uuid IS NULL OR (b.created_at, b.id) ${after} (SELECT c.created_at, c.id FROM payout_batches c WHERE c.id = $5 AND c.vendor_id = $1))
        ORDER BY b.created_at ${sql}, b.id ${sql} LIMIT $6`,
      [vendorId, filter.range.start, filter.range.endExclusive, filter.referencePrefix ?? null, afterId, limit],
    );
    return rows.map(BATCH_ITEM.read);
  }

  /**
   * One page of the vendor's payouts, newest first, by offset with the total (the back-office's
   * numbered pages; the API's lists are keyset-paged above). Same filters as `payouts`.
   */
  async payoutPage(vendorId: string, filter: PayoutListFilter, limit: number, offset: number): Promise<{ rows: PayoutListLine[]; total: number }> {
    const where = `p.vendor_id = $1 AND ${inRange('p', 2)}
          AND ($4::text IS NULL OR p.status = $4) AND ($5::text IS NULL OR p.method = $5)
          AND ($6::text IS NULL OR left(p.reference, length($6)) = $6)
          AND ($7::text IS NULL OR p.batch_id = (SELECT id FROM payout_batches WHERE vendor_id = $1 AND reference = $7))`;
    const parameters = [vendorId, filter.range.start, filter.range.endExclusive, filter.status ?? null, filter.method ?? null, filter.referencePrefix ?? null, filter.batchReference ?? null];
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total FROM payouts p WHERE ${where}`, parameters)) as { total: number }[];
    const rows: object[] = await this.dataSource.query(
      `SELECT ${PAYOUT_LINE.columns} FROM payouts p LEFT JOIN payout_batches b ON b.id = p.batch_id
        WHERE ${where} ORDER BY p.created_at DESC, p.id DESC LIMIT $8 OFFSET $9`,
      [...parameters, limit, offset],
    );
    return { rows: rows.map(PAYOUT_LINE.read), total };
  }

  /** One page of the vendor's batches, newest first, by offset with the total (the back-office). */
  async batchPage(vendorId: string, filter: BatchListFilter, limit: number, offset: number): Promise<{ rows: BatchListItem[]; total: number }> {
    const where = `b.vendor_id = $1 AND ${inRange('b', 2)} AND ($4::text IS NULL OR left(b.reference, length($4)) = $4)`;
    const parameters = [vendorId, filter.range.start, filter.range.endExclusive, filter.referencePrefix ?? null];
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total FROM payout_batches b WHERE ${where}`, parameters)) as { total: number }[];
    const rows: object[] = await this.dataSource.query(`SELECT ${BATCH_ITEM.columns} FROM payout_batches b WHERE ${where} ORDER BY b.created_at DESC, b.id DESC LIMIT $5 OFFSET $6`, [
      ...parameters,
      limit,
      offset,
    ]);
    return { rows: rows.map(BATCH_ITEM.read), total };
  }

  /**
   * The back-office search, across vendors: the batch with this id and those whose reference
   * starts so (a LIKE pattern, backslash escaping), newest first, with their vendor.
   */
  async staffSearch(id: string | null, referencePattern: string, limit: number): Promise<Array<BatchListItem & { vendorId: string; vendorName: string }>> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT ${BATCH_ITEM.columns}, b.vendor_id AS "vendorId", v.name AS "vendorName" FROM payout_batches b JOIN vendors v ON v.id = b.vendor_id
        WHERE b.id = $1::uuid OR b.reference LIKE $2 ESCAPE '\\' ORDER BY b.created_at DESC, b.id DESC LIMIT $3`,
      [id, referencePattern, limit],
    );
    return rows.map((row) => ({ ...BATCH_ITEM.read(row), vendorId: String(row.vendorId), vendorName: String(row.vendorName) }));
  }

  /** The items of the vendor's batches, by batch and position. */
  async itemsOf(vendorId: string, batchIds: readonly string[]): Promise<PayoutListLine[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${PAYOUT_LINE.columns} FROM payouts p JOIN payout_batches b ON b.id = p.batch_id
        WHERE p.vendor_id = $1 AND p.batch_id = ANY($2::uuid[]) ORDER BY p.batch_id, p.batch_position`,
      [vendorId, batchIds],
    );
    return rows.map(PAYOUT_LINE.read);
  }

  /** The vendor's payout with this id, or null. */
  async payoutById(vendorId: string, id: string): Promise<PayoutListLine | null> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${PAYOUT_LINE.columns} FROM payouts p LEFT JOIN payout_batches b ON b.id = p.batch_id WHERE p.vendor_id = $1 AND p.id = $2`,
      [vendorId, id],
    );
    return PAYOUT_LINE.first(rows);
  }
}
