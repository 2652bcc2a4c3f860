import { Injectable } from '@nestjs/common';
import { johannesburgDayRange, ValidationFailedError, type CsvCell, decimalCell } from '#common';
import { formatCents, type Cents } from '#money';
import {
  CATEGORY_OF_KIND,
  decodeStatementCursor,
  encodeStatementCursor,
  lineAmountCents,
  statementLines,
  STATEMENT_CATEGORIES,
  type Balances,
  type StatementCategory,
  type StatementLine,
} from '../model/statement.js';
import { StatementRepository, type InstantRange } from '../persistence/statement.repository.js';

/** Whole Africa/Johannesburg days, both ends inclusive; an omitted end is open. */
export interface StatementDays {
  dateFrom?: string;
  dateTo?: string;
}

export interface StatementPageQuery extends StatementDays {
  order: 'asc' | 'desc';
  perPage: number;
  cursor?: string;
}

/** `GET /api/v1/statement` line. */
export interface StatementLineView {
  id: string;
  created_at: string;
  category: StatementCategory;
  kind: string;
  amount: string;
  available_change: string;
  reserved_change: string;
  available_after: string;
  reserved_after: string;
  currency: 'ZAR';
  payout_id: string | null;
  payout_reference: string | null;
  batch_reference: string | null;
}

/** The cursor-paging answer shared by the gateways' growing lists (docs/INTEGRATION.md, "Lists and paging"). */
export interface CursorPage<T> {
  items: T[];
  per_page: number;
  next_cursor: string | null;
}

export interface BalancesView {
  available: string;
  reserved: string;
}

export interface StatementCategoryTotal {
  category: StatementCategory;
  count: number;
  available_change: string;
  reserved_change: string;
}

/** `GET /api/v1/statement/summary`: closing = opening + the categories' changes, always. */
export interface StatementSummaryView {
  date_from: string | null;
  date_to: string | null;
  currency: 'ZAR';
  opening: BalancesView;
  closing: BalancesView;
  categories: StatementCategoryTotal[];
}

/** The statement CSV's columns, in order (docs/PAYOUT.md, "Exports"). */
export const STATEMENT_CSV_HEADER = [
  'line_id', 'created_at', 'category', 'kind', 'payout_reference', 'batch_reference', 'payout_id', 'currency',
  'amount', 'available_change', 'reserved_change', 'available_after', 'reserved_after',
] as const;

/** How many ledger entries an export reads per query: a bounded batch whatever the range holds. */
const EXPORT_BATCH = 2_000;

const balancesView = (balances: Balances): BalancesView => ({ available: formatCents(balances.availableCents), reserved: formatCents(balances.reservedCents) });
const add = (a: Balances, b: Balances): Balances => ({ availableCents: a.availableCents + b.availableCents, reservedCents: a.reservedCents + b.reservedCents });

/**
 * The payout account statement: the vendor's ledger entries as lines a bookkeeper can map
 * (model/statement.ts), with running balances, a range summary and a CSV export.
 */
@Injectable()
export class PayoutStatementService {
  constructor(private readonly statements: StatementRepository) {}

  async page(vendorId: string, query: StatementPageQuery): Promise<CursorPage<StatementLineView>> {
    const range = instantRange(query);
    const cursor = query.cursor === undefined ? null : decodeStatementCursor(query.cursor);
    if (query.cursor !== undefined && cursor === null) throw new ValidationFailedError({ cursor: ['cursor must be a next_cursor from an earlier page'] });
    // The entry holding the cursor's line may have a line on the far side of it (a fee line), so it is read again.
    const fromId = cursor === null ? null : cursor / 2n;
    // Each entry is one or two lines and at most one (the cursor's) is dropped: perPage + 2 entries give more than a page when there is more.
    const entries = await this.statements.entries(vendorId, range, query.order, fromId, query.perPage + 2);
    if (entries.length === 0) return { items: [], per_page: query.perPage, next_cursor: null };
    const ascending = query.order === 'asc' ? entries : [...entries].reverse();
    const before = add(await this.statements.balancesBefore(vendorId, range.start), await this.statements.rangeSumBelow(vendorId, range, ascending[0].id));
    const lines = statementLines(ascending, before);
    const ordered = query.order === 'asc' ? lines : lines.reverse();
    const beyondCursor = cursor === null ? ordered : ordered.filter((line) => (query.order === 'asc' ? line.position > cursor : line.position < cursor));
    const items = beyondCursor.slice(0, query.perPage);
    const more = beyondCursor.length > query.perPage;
    return { items: items.map(lineView), per_page: query.perPage, next_cursor: more ? encodeStatementCursor(items[items.length - 1].position) : null };
  }

  async summary(vendorId: string, days: StatementDays): Promise<StatementSummaryView> {
    const range = instantRange(days);
    const opening = await this.statements.balancesBefore(vendorId, range.start);
    const totals = new Map<StatementCategory, { count: number; availableCents: Cents; reservedCents: Cents }>(
      STATEMENT_CATEGORIES.map((category) => [category, { count: 0, availableCents: 0n, reservedCents: 0n }]),
    );
    const tally = (category: StatementCategory, count: number, availableCents: Cents, reservedCents: Cents) => {
      const total = totals.get(category)!;
      totals.set(category, { count: total.count + count, availableCents: total.availableCents + availableCents, reservedCents: total.reservedCents + reservedCents });
    };
    for (const kind of await this.statements.totals(vendorId, range)) {
      // The fee share moves the side the settlement moves: reserved for settle, available for resettle.
      const feeAvailable = kind.kind === 'resettle' ? -kind.feeCents : 0n;
      const feeReserved = kind.kind === 'settle' ? -kind.feeCents : 0n;
      tally(CATEGORY_OF_KIND[kind.kind], kind.count, kind.availableCents - feeAvailable, kind.reservedCents - feeReserved);
      if (kind.feeLines > 0) tally('fee', kind.feeLines, feeAvailable, feeReserved);
    }
    const categories = STATEMENT_CATEGORIES.map((category) => ({ category, ...totals.get(category)! }));
    const closing = categories.reduce((sum, total) => add(sum, total), opening);
    return {
      date_from: days.dateFrom ?? null,
      date_to: days.dateTo ?? null,
      currency: 'ZAR',
      opening: balancesView(opening),
      closing: balancesView(closing),
      categories: categories.map((total) => ({
        category: total.category,
        count: total.count,
        available_change: formatCents(total.availableCents),
        reserved_change: formatCents(total.reservedCents),
      })),
    };
  }

  /**
   * The range's lines oldest first, as CSV rows, one bounded batch of entries per query. The end is
   * fixed when the export starts (the range's last entry id then), so the file is one consistent
   * statement even while entries arrive.
   */
  async *csvRows(vendorId: string, days: StatementDays): AsyncGenerator<Array<readonly CsvCell[]>> {
    const range = instantRange(days);
    const lastId = await this.statements.lastEntryId(vendorId, range);
    if (lastId === null) return;
    let running = await this.statements.balancesBefore(vendorId, range.start);
    let afterId = 0n;
    for (;;) {
      const entries = await this.statements.entriesBetween(vendorId, range, afterId, lastId, EXPORT_BATCH);
      if (entries.length === 0) return;
      const lines = statementLines(entries, running);
      running = lines[lines.length - 1].after;
      afterId = entries[entries.length - 1].id;
      yield lines.map(csvRow);
    }
  }
}

/** The instants of whole Johannesburg days; refuses a reversed range. */
export function instantRange(days: StatementDays): InstantRange {
  if (days.dateFrom !== undefined && days.dateTo !== undefined && days.dateFrom > days.dateTo) {
    throw new ValidationFailedError({ date_from: ['date_from must not be after date_to'] });
  }
  return {
    start: days.dateFrom === undefined ? null : johannesburgDayRange(days.dateFrom).start,
    endExclusive: days.dateTo === undefined ? null : johannesburgDayRange(days.dateTo).endExclusive,
  };
}

const lineId = (line: StatementLine) => (line.position % 2n === 1n ? `${line.entry.id}-fee` : `${line.entry.id}`);

function lineView(line: StatementLine): StatementLineView {
  return {
    id: lineId(line),
    created_at: line.entry.createdAt.toISOString(),
    category: line.category,
    kind: line.entry.kind,
    amount: formatCents(lineAmountCents(line)),
    available_change: formatCents(line.availableChangeCents),
    reserved_change: formatCents(line.reservedChangeCents),
    available_after: formatCents(line.after.availableCents),
    reserved_after: formatCents(line.after.reservedCents),
    currency: 'ZAR',
    payout_id: line.entry.payoutId,
    payout_reference: line.entry.payoutReference,
    batch_reference: line.entry.batchReference,
  };
}

function csvRow(line: StatementLine): readonly CsvCell[] {
  const view = lineView(line);
  return [
    view.id, view.created_at, view.category, view.kind, view.payout_reference, view.batch_reference, view.payout_id, view.currency,
    decimalCell(view.amount), decimalCell(view.available_change), decimalCell(view.reserved_change), decimalCell(view.available_after), decimalCell(view.reserved_after),
  ];
}
