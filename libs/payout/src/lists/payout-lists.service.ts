import { Injectable } from '@nestjs/common';
import { UUID_PATTERN, ValidationFailedError } from '#common';
import { formatCents } from '#money';
import { batchStatusOf, type BatchStatus } from '../model/batch-status.js';
import type { PayoutMethod } from '../model/payout-method-catalogue.js';
import type { PayoutStatus } from '../model/payout-record.js';
import { payoutViewOf, type PayoutView } from '../model/payout-view.js';
import { PayoutListRepository } from '../persistence/payout-list.repository.js';
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
  perPage: number;
  cursor?: string;
}

/** A batch in a list: the Batch without its items (GET /batches/{reference} has them). */
export interface BatchSummaryView {
  id: string;
  reference: string;
  status: BatchStatus;
  total_amount: string;
  total_fee: string;
  item_count: number;
  created_at: string;
  currency: 'ZAR';
}

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
    const afterId = decodeCursor('p', query.cursor);
    const filter = { range: instantRange(query), status: query.status, method: query.method, referencePrefix: query.referencePrefix, batchReference: query.batch };
    const rows = await this.lists.payouts(vendorId, filter, afterId, query.perPage + 1);
    const items = rows.slice(0, query.perPage);
    // Lists never carry delivery codes: those are read one payout at a time, audited.
    return { items: items.map((row) => payoutViewOf(row, null)), per_page: query.perPage, next_cursor: rows.length > query.perPage ? encodeCursor('p', items[items.length - 1].id) : null };
  }

  async batches(vendorId: string, query: BatchListQuery): Promise<CursorPage<BatchSummaryView>> {
    const afterId = decodeCursor('b', query.cursor);
    const rows = await this.lists.batches(vendorId, { range: instantRange(query), referencePrefix: query.referencePrefix }, afterId, query.perPage + 1);
    const items = rows.slice(0, query.perPage);
    return {
      items: items.map((row) => ({
        id: row.id,
        reference: row.reference,
        status: batchStatusOf(row.itemStatuses),
        total_amount: formatCents(row.totalAmountCents),
        total_fee: formatCents(row.totalFeeCents),
        item_count: row.itemCount,
        created_at: row.createdAt.toISOString(),
        currency: 'ZAR',
      })),
      per_page: query.perPage,
      next_cursor: rows.length > query.perPage ? encodeCursor('b', items[items.length - 1].id) : null,
    };
  }
}
