import type { VendorPrincipal } from '#auth';
import { DomainError } from '#common';
import type { DashboardSession } from '#dashboard';
import type { StatementDays } from '#payout';
import { html, type SafeHtml } from '#web';

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
