import { html, isoDayOrUndefined, type SafeHtml } from '#web';

/** The query string of a filtered, numbered list: every value optional, as the browser sends it. */
export type ListQuery = Partial<Record<string, string | string[]>>;

/** What a list page reads from its query, and the field errors of what it could not read. */
export interface ListFilters<Status extends string> {
  status?: Status;
  /** Whole Africa/Johannesburg days (YYYY-MM-DD), both included. */
  dateFrom?: string;
  dateTo?: string;
  /** From 1; a page past the end is the pager's to explain. */
  page: number;
  errors: Record<string, string[]>;
}

/** One value of the query: a repeated parameter or anything but text counts as absent. */
export const queryText = (query: ListQuery, key: string): string | undefined => {
  const value = query[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

/**
 * The status, the Johannesburg days from/to and the page of a list's query, checked: an unknown
 * status or a date that is not a real day is a field error (the page answers 400 and lists nothing),
 * an end before the start too.
 */
export function listFilters<Status extends string>(query: ListQuery, statuses: readonly Status[]): ListFilters<Status> {
  const errors: Record<string, string[]> = {};
  const filters: ListFilters<Status> = { page: 1, errors };
  const status = queryText(query, 'status');
  if (status !== undefined) {
    if ((statuses as readonly string[]).includes(status)) filters.status = status as Status;
    else errors.status = ['Choose a listed status.'];
  }
  for (const [key, field] of [['from', 'dateFrom'], ['to', 'dateTo']] as const) {
    const text = queryText(query, key);
    filters[field] = isoDayOrUndefined(text);
    if (text !== undefined && filters[field] === undefined) errors[key] = ['Use a real date such as 2026-01-31.'];
  }
  if (filters.dateFrom && filters.dateTo && filters.dateFrom > filters.dateTo) errors.to = ['The end date is before the start date.'];
  const page = Number(queryText(query, 'page') ?? '1');
  filters.page = Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1;
  return filters;
}

/** The status choice and the two day fields of a list's filter form. */
export function statusAndDays(query: ListQuery, statuses: readonly string[], prefix = ''): SafeHtml {
  const chosen = queryText(query, 'status');
  return html`<div><label for="${prefix}status">Status</label><select id="${prefix}status" name="status"><option value="">Any</option>${statuses.map(
    (status) => html`<option value="${status}"${chosen === status ? html` selected` : ''}>${status}</option>`,
  )}</select></div>${days(query, prefix)}`;
}

/** The from/to day fields (Johannesburg days) of a list's filter form. */
export function days(query: ListQuery, prefix = ''): SafeHtml {
  return html`<div><label for="${prefix}from">From (Johannesburg day)</label><input id="${prefix}from" name="from" type="date" value="${queryText(query, 'from') ?? ''}"></div>
<div><label for="${prefix}to">To (Johannesburg day)</label><input id="${prefix}to" name="to" type="date" value="${queryText(query, 'to') ?? ''}"></div>`;
}

/** The filters to keep in the pager's links: the ones the query sets. */
export const keptFilters = (query: ListQuery, keys: readonly string[]): Record<string, string | undefined> => Object.fromEntries(keys.map((key) => [key, queryText(query, key)]));
