import type { VendorPrincipal } from '#auth';
import { DomainError } from '#common';
import type { DashboardSession } from '#dashboard';
import type { StatementDays } from '#payout';
import { errorSummary, html, type SafeHtml } from '#web';
import { dayFields, downloadLink, type ListQuery } from './list-filters.js';

/** Rows a page of the payout and batch lists. */
export const PER_PAGE = 25;

/**
 * The payout domain acts for the vendor as it does for a token: reads and writes, never the
 * delivery scope, so a batch page never decrypts voucher PINs. The id marks dashboard use.
 */
export function principalOf(session: DashboardSession): VendorPrincipal {
  return { vendorId: session.vendorId, tokenId: `dashboard:${session.userId}`, abilities: ['payouts:read', 'payouts:write'] };
}

/** The API export's file name for the same days. */
export const exportName = (what: string, days: StatementDays) => `${what}-${days.dateFrom ?? 'start'}-${days.dateTo ?? 'now'}.csv`;

/** A cursor-paged list's links: back to the newest page (keeping the filters) and on to older rows. */
export function cursorPager(path: string, kept: string, paged: boolean, next: string | null, what: string): SafeHtml {
  const link = (extra: Record<string, string>) => {
    const search = [kept, new URLSearchParams(extra).toString()].filter(Boolean).join('&');
    return search ? `${path}?${search}` : path;
  };
  return html`<nav aria-label="Pages" class="pager">${paged ? html`<a href="${link({})}">Newest ${what}</a>` : ''}${next ? html`<a href="${link({ cursor: next })}">Older ${what}</a>` : ''}</nav>`;
}

/** A list page from `cursor`; a stale or edited cursor falls back to the newest page, with a message. */
export async function cursorPage<T>(errors: Record<string, string[]>, read: (cursor: string | undefined) => Promise<T>, cursor?: string): Promise<T> {
  if (!cursor) return read(undefined);
  try {
    return await read(cursor);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    errors.cursor = ['That page link is no longer valid; showing the newest.'];
    return read(undefined);
  }
}

/** One of the cursor-paged lists (payouts, batches): what sets it apart from the other. */
export interface CursorList {
  /** The list's page; its download is `${path}/download`. */
  path: string;
  /** What it lists, plural: "payouts". */
  what: string;
  query: ListQuery;
  /** The filter form's own fields, before the day fields. */
  filters: SafeHtml;
  errors: Record<string, string[]>;
  /** The filters as a query string, kept by the download and the pager. */
  kept: string;
  /** Null when the filters were not valid: nothing was read. */
  page: { next_cursor: string | null } | null;
  /** What the download link calls the file's contents. */
  download: string;
  caption: string;
  /** The header cells, `columns` of them. */
  head: SafeHtml;
  columns: number;
  rows: SafeHtml[];
}

/** A cursor-paged list: the filter form, the download of all that match, the page's table and the pager. */
export function cursorList(list: CursorList): SafeHtml {
  return html`${errorSummary(list.errors)}
<form method="get" action="${list.path}" class="filters" role="search" aria-label="Filter ${list.what}">
${list.filters}
${dayFields(list.query)}
<div><button type="submit">Filter</button> <a href="${list.path}">Clear</a></div></form>
${list.page ? downloadLink(`${list.path}/download`, list.kept, list.download) : ''}
<table><caption class="hint">${list.caption}</caption>
<thead><tr>${list.head}</tr></thead>
<tbody>${list.rows.length ? list.rows : html`<tr><td colspan="${list.columns}">No ${list.what} match.</td></tr>`}</tbody></table>
${cursorPager(list.path, list.kept, Boolean(list.query.cursor), list.page?.next_cursor ?? null, list.what)}`;
}
