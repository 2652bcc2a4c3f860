import { html, isoDayOrUndefined, type SafeHtml } from '#web';

/** A list's query string, as the browser sends it (repeated keys are not used). */
export type ListQuery = Partial<Record<string, string>>;

/** The filters a list understood, and a message per field it could not use. */
export interface ListFilter<T> {
  filter: T;
  errors: Record<string, string[]>;
}

/**
 * The optional `from` and `to` Johannesburg days of a list; a malformed day or a start after the
 * end is a message for its field (the page shows it and reads nothing).
 */
export function dayRangeOf(query: ListQuery, errors: Record<string, string[]>): { dateFrom?: string; dateTo?: string } {
  const dateFrom = isoDayOrUndefined(query.from);
  const dateTo = isoDayOrUndefined(query.to);
  if (query.from && !dateFrom) errors.from = ['Use a real date such as 2026-01-31.'];
  if (query.to && !dateTo) errors.to = ['Use a real date such as 2026-01-31.'];
  if (dateFrom && dateTo && dateFrom > dateTo) errors.to = ['The end date is before the start date.'];
  return { dateFrom, dateTo };
}

/** One of `allowed`, or undefined when empty; anything else is a message for `field`. */
export function choiceOf<T extends string>(value: string | undefined, allowed: readonly T[], field: string, errors: Record<string, string[]>): T | undefined {
  if (!value) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  errors[field] = ['Choose one of the listed values.'];
  return undefined;
}

/** The set filters as a query string (empty ones left out), for links that keep them. */
export function queryOf(values: Record<string, string | undefined>): string {
  return new URLSearchParams(Object.entries(values).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString();
}

/** A select of a list's filter form; `labels` maps a value to its words (the value itself by default). */
export function selectField(id: string, label: string, values: readonly string[], selected: string | undefined, labels: (value: string) => string = (value) => value): SafeHtml {
  return html`<div><label for="${id}">${label}</label><select id="${id}" name="${id}"><option value="">Any</option>${values.map(
    (value) => html`<option value="${value}"${selected === value ? html` selected` : ''}>${labels(value)}</option>`,
  )}</select></div>`;
}

/** The `from` and `to` day fields of a list's filter form. */
export function dayFields(query: ListQuery): SafeHtml {
  return html`<div><label for="from">From (Johannesburg day)</label><input id="from" name="from" type="date" value="${query.from ?? ''}"></div>
<div><label for="to">To (Johannesburg day)</label><input id="to" name="to" type="date" value="${query.to ?? ''}"></div>`;
}

/** The link that downloads what the list shows, as CSV, with its filters. */
export function downloadLink(path: string, query: string, what: string): SafeHtml {
  return html`<p><a href="${query ? `${path}?${query}` : path}" download>Download ${what} (CSV)</a> <span class="hint">All that match the filters, not only this page.</span></p>`;
}
