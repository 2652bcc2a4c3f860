import { Injectable } from '@nestjs/common';
import { decimalCell, UUID_PATTERN, ValidationFailedError, type CsvCell } from '#common';
import { formatCents } from '#money';
import { batchStatusOf, type BatchStatus } from '../model/batch-status.js';
import type { BatchView } from '../model/batch-view.js';
import type { PayoutMethod } from '../model/payout-method-catalogue.js';
import type { PayoutStatus } from '../model/payout-status.js';
import { payoutViewOf, type PayoutView } from '../model/payout-view.js';
import type { BatchListItem, PayoutListLine } from '../model/payout-list-item.js';
import { PayoutListRepository, type BatchListFilter, type ListOrder } from '../persistence/payout-list.repository.js';
import { instantRange, type CursorPage, type StatementDays } from '../statement/payout-statement.service.js';

export interface PayoutListQuery extends StatementDays {
  status?: PayoutStatus;
  method?: PayoutMethod;
  referencePrefix?: string;
  batch?: string;
  perPage: number;
  cursor?: string;
}

export interface BatchListQuery extends StatementDays {
  referencePrefix?: string;
  /** Derived from the items on every read (batchStatusOf), so it is matched as the batches are read, not in SQL. */
  status?: BatchStatus;
  perPage: number;
  cursor?: string;
}

/** A batch in a list: the Batch without its items (GET /batches/{reference} has them). */
export type BatchSummaryView = Omit<BatchView, 'payouts'>;

/** The payouts CSV's columns, in order (docs/PAYOUT.md, "Exports"). */
export const PAYOUT_CSV_HEADER = [
  'payout_id', 'reference', 'batch_reference', 'status', 'status_reason', 'method', 'currency', 'amount', 'fee', 'merchant_reference', 'provider_reference', 'created_at', 'paid_at',
] as const;

/** The batches CSV: one line per item, its batch's columns first. */
export const BATCH_CSV_HEADER = [
  'batch_id', 'batch_reference', 'batch_status', 'batch_created_at', 'item_position', 'payout_id', 'reference', 'status', 'status_reason', 'method', 'currency', 'amount', 'fee',
  'merchant_reference', 'created_at', 'paid_at',
] as const;

/** A payout of a list with the reference of the batch it is an item of (the dashboard links it). */
export interface PayoutListItem {
  payout: PayoutView;
  batchReference: string | null;
}

/** Rows per query of an export; batches per query of the batch export (up to 500 items each). */
const EXPORT_ROWS = 2_000;
const EXPORT_BATCHES = 20;
/** Batches read per query while looking for those of one status. */
const STATUS_SCAN_BATCHES = 200;

const encodeCursor = (list: 'p' | 'b', id: string) => Buffer.from(`${list}1:${id}`, 'utf8').toString('base64url');

/** The row id a list cursor names; a cursor of another list or not ours is a field error. */
function decodeCursor(list: 'p' | 'b', cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const id = text.startsWith(`${list}1:`) ? text.slice(3) : '';
  if (!UUID_PATTERN.test(id)) throw new ValidationFailedError({ cursor: ['cursor must be a next_cursor from an earlier page'] });
  return id;
}

/** `GET /payouts` and `GET /batches`: newest first, cursor-paged, filtered. */
@Injectable()
export class PayoutListsService {
  constructor(private readonly lists: PayoutListRepository) {}

  async payouts(vendorId: string, query: PayoutListQuery): Promise<CursorPage<PayoutView>> {
    const page = await this.payoutsWithBatches(vendorId, query);
    return { ...page, items: page.items.map((item) => item.payout) };
  }

  /** GET /payouts' page, each payout with its batch's reference (the dashboard's list). */
  async payoutsWithBatches(vendorId: string, query: PayoutListQuery): Promise<CursorPage<PayoutListItem>> {
    const afterId = decodeCursor('p', query.cursor);
    const filter = { range: instantRange(query), status: query.status, method: query.method, referencePrefix: query.referencePrefix, batchReference: query.batch };
    const rows = await this.lists.payouts(vendorId, filter, afterId, query.perPage + 1);
    const items = rows.slice(0, query.perPage);
    // Lists never carry delivery codes: those are read one payout at a time, audited.
    return {
      items: items.map((row) => ({ payout: payoutViewOf(row, null), batchReference: row.batchReference })),
      per_page: query.perPage,
      next_cursor: rows.length > query.perPage ? encodeCursor('p', items[items.length - 1].id) : null,
    };
  }

  async batches(vendorId: string, query: BatchListQuery): Promise<CursorPage<BatchSummaryView>> {
    const afterId = decodeCursor('b', query.cursor);
    const rows = await this.batchesOfStatus(vendorId, { range: instantRange(query), referencePrefix: query.referencePrefix }, query.status, afterId, query.perPage + 1, 'desc');
    const items = rows.slice(0, query.perPage);
    return {
      items: items.map(batchSummaryOf),
      per_page: query.perPage,
      next_cursor: rows.length > query.perPage ? encodeCursor('b', items[items.length - 1].id) : null,
    };
  }

  /**
   * One numbered page of the vendor's payouts with the total (the back-office's vendor pages),
   * newest first, with the filters of `payouts`; `page` counts from 1.
   */
  async payoutPage(vendorId: string, query: Omit<PayoutListQuery, 'cursor'> & { page: number }): Promise<{ items: PayoutView[]; total: number }> {
    const filter = { range: instantRange(query), status: query.status, method: query.method, referencePrefix: query.referencePrefix, batchReference: query.batch };
    const { rows, total } = await this.lists.payoutPage(vendorId, filter, query.perPage, (query.page - 1) * query.perPage);
    return { items: rows.map((row) => payoutViewOf(row, null)), total };
  }

  /** One numbered page of the vendor's batches with the total, newest first. */
  async batchPage(vendorId: string, query: Omit<BatchListQuery, 'cursor'> & { page: number }): Promise<{ items: BatchSummaryView[]; total: number }> {
    const { rows, total } = await this.lists.batchPage(vendorId, { range: instantRange(query), referencePrefix: query.referencePrefix }, query.perPage, (query.page - 1) * query.perPage);
    return { items: rows.map(batchSummaryOf), total };
  }

  /** The vendor's payout with this id (a UUID), as the lists show it; null when it is not theirs. */
  /** Staff's search across vendors: the batch with this id and those whose reference matches the LIKE pattern. */
  staffSearch(id: string | null, referencePattern: string, limit: number): Promise<Array<BatchListItem & { vendorId: string; vendorName: string }>> {
    return this.lists.staffSearch(id, referencePattern, limit);
  }

  async payoutById(vendorId: string, id: string): Promise<PayoutView | null> {
    const row = await this.lists.payoutById(vendorId, id);
    return row === null ? null : payoutViewOf(row, null);
  }

  /** The filtered payouts oldest first as CSV rows, read by keyset one bounded batch at a time. */
  async *payoutCsvRows(vendorId: string, query: Omit<PayoutListQuery, 'perPage' | 'cursor'>): AsyncGenerator<Array<readonly CsvCell[]>> {
    const filter = { range: instantRange(query), status: query.status, method: query.method, referencePrefix: query.referencePrefix, batchReference: query.batch };
    let afterId: string | null = null;
    for (;;) {
      const rows = await this.lists.payouts(vendorId, filter, afterId, EXPORT_ROWS, 'asc');
      if (rows.length === 0) return;
      afterId = rows[rows.length - 1].id;
      yield rows.map(payoutCsvRow);
    }
  }

  /** The batches oldest first, each item a CSV row, a few batches per query. */
  async *batchCsvRows(vendorId: string, query: Omit<BatchListQuery, 'perPage' | 'cursor'>): AsyncGenerator<Array<readonly CsvCell[]>> {
    const filter = { range: instantRange(query), referencePrefix: query.referencePrefix };
    let afterId: string | null = null;
    for (;;) {
      const batches = await this.batchesOfStatus(vendorId, filter, query.status, afterId, EXPORT_BATCHES, 'asc');
      if (batches.length === 0) return;
      afterId = batches[batches.length - 1].id;
      const items = await this.lists.itemsOf(vendorId, batches.map((batch) => batch.id));
      yield batches.flatMap((batch) => items.filter((item) => item.batchId === batch.id).map((item) => batchCsvRow(batch, item)));
    }
  }

  /**
   * Up to `limit` batches after `afterId` in `order`; with a status, those whose derived status it
   * is, read a bounded chunk at a time (the status is never stored, so SQL cannot select it).
   */
  private async batchesOfStatus(vendorId: string, filter: BatchListFilter, status: BatchStatus | undefined, afterId: string | null, limit: number, order: ListOrder): Promise<BatchListItem[]> {
    if (status === undefined) return this.lists.batches(vendorId, filter, afterId, limit, order);
    const found: BatchListItem[] = [];
    let after = afterId;
    for (;;) {
      const chunk = await this.lists.batches(vendorId, filter, after, STATUS_SCAN_BATCHES, order);
      found.push(...chunk.filter((row) => batchStatusOf(row.itemStatuses) === status));
      if (found.length >= limit || chunk.length < STATUS_SCAN_BATCHES) return found.slice(0, limit);
      after = chunk[chunk.length - 1].id;
    }
  }
}

/** A batch as the lists show it, its status derived from its items'. */
export function batchSummaryOf(row: BatchListItem): BatchSummaryView {
  return {
    id: row.id,
    reference: row.reference,
    status: batchStatusOf(row.itemStatuses),
    total_amount: formatCents(row.totalAmountCents),
    total_fee: formatCents(row.totalFeeCents),
    item_count: row.itemCount,
    created_at: row.createdAt.toISOString(),
    currency: 'ZAR',
  };
}

const timeCell = (date: Date | null): CsvCell => date?.toISOString() ?? null;

function payoutCsvRow(row: PayoutListLine): readonly CsvCell[] {
  const view = payoutViewOf(row, null);
  return [
    view.id, view.reference, row.batchReference, view.status, view.status_reason, view.method, view.currency, decimalCell(view.amount), decimalCell(view.fee),
    view.merchant_reference, view.provider_reference, view.created_at, view.paid_at,
  ];
}

function batchCsvRow(batch: BatchListItem, item: PayoutListLine): readonly CsvCell[] {
  const view = payoutViewOf(item, null);
  return [
    batch.id, batch.reference, batchStatusOf(batch.itemStatuses), timeCell(batch.createdAt), String(item.batchPosition ?? ''), view.id, view.reference, view.status,
    view.status_reason, view.method, view.currency, decimalCell(view.amount), decimalCell(view.fee), view.merchant_reference, view.created_at, view.paid_at,
  ];
}
