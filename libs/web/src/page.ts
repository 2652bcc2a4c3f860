import type { Response } from 'express';
import { html, SafeHtml } from './html.js';

/** The hidden CSRF field every state-changing form carries. */
export const csrfField = (session: { csrfToken: string }) => html`<input type="hidden" name="_csrf" value="${session.csrfToken}">`;

/** One page of a signed-in app. */
export interface PageOptions<Session> {
  title: string;
  /** Whoever is signed in; none before sign-in. */
  session?: Session;
  body: SafeHtml;
  /** Path of the current section, marked with aria-current in the navigation. */
  current?: string;
}

/**
 * Every table in a box of its own that scrolls sideways when the table is wider than the screen
 * (a phone), so the page itself never does. The box takes keyboard focus, so it can be scrolled
 * without a mouse. The body is markup built by `html`, where any text from data is escaped: a
 * literal `<table` in it can only be markup.
 */
function boxedTables(body: SafeHtml): SafeHtml {
  return new SafeHtml(body.value.replace(/<table\b/g, '<div class="table-box" tabindex="0" role="region" aria-label="Table">$&').replace(/<\/table>/g, '$&</div>'));
}

/** What sets one signed-in app's pages apart from the other's. */
export interface AppLayout<Session> {
  /** The app's name, in the header and every title ("Vendor dashboard", "Staff back-office"). */
  brand: string;
  /** The app's stylesheet and script (served by its assets controller; no inline script). */
  assets: { css: string; js: string };
  headerClass?: string;
  /** The sections the session's role may open. */
  sections(session: Session): readonly { path: string; label: string }[];
  /** Who is signed in, as the header names them. */
  who(session: Session): string;
  /** The sign-out forms right of the navigation: where each posts, and its button. */
  signOut: readonly { action: string; label: string }[];
}

/**
 * The page layout both signed-in apps share. `layout` is one page: skip link, landmarks, the
 * navigation (the sections the role may open), who is signed in with the sign-out forms, one h1.
 * `sendPage` sends the layout around a body as HTML, with `status` when given (otherwise the route's).
 */
export function appLayout<Session extends { csrfToken: string }>(app: AppLayout<Session>) {
  const layout = ({ title, session, body, current }: PageOptions<Session>): SafeHtml => {
    const nav = session
      ? html`<nav aria-label="Main"><ul>${app.sections(session).map(
          (section) => html`<li><a href="${section.path}"${current === section.path ? html` aria-current="page"` : ''}>${section.label}</a></li>`,
        )}</ul></nav>`
      : '';
    const who = session
      ? html`
      <div class="who"><span>${app.who(session)}</span>${app.signOut.map((form) => html`
        <form method="post" action="${form.action}">${csrfField(session)}<button type="submit">${form.label}</button></form>`)}
      </div>`
      : '';
    return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${app.brand}</title>
<link rel="stylesheet" href="${app.assets.css}">
<script src="${app.assets.js}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header${app.headerClass ? html` class="${app.headerClass}"` : ''}><p class="brand">${app.brand}</p>${nav}${who}</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${boxedTables(body)}
</main>
</body>
</html>`;
  };
  const sendPage = (response: Response, options: PageOptions<Session>, status?: number): void => {
    if (status !== undefined) response.status(status);
    response.type('html').send(layout(options).value);
  };
  return { layout, sendPage };
}

/**
 * The links under a list of `total` rows, `perPage` to a page: previous and next page, each
 * keeping the list's filters that are set, and where the reader is.
 */
export function pager(path: string, filters: Record<string, string | undefined>, page: number, total: number, perPage: number): SafeHtml {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const kept = Object.entries(filters).filter((filter): filter is [string, string] => Boolean(filter[1]));
  const link = (target: number) => `${path}?${new URLSearchParams([...kept, ['page', String(target)]]).toString()}`;
  // A page number past the end (an old link, a hand-edited URL) says so and offers the last page.
  if (page > lastPage) {
    return html`<nav aria-label="Pages" class="pager"><span>There is no page ${page}: the last page is ${lastPage}.</span><a href="${link(lastPage)}">Go to page ${lastPage}</a></nav>`;
  }
  const previous = page > 1 ? html`<a href="${link(page - 1)}">Previous page</a>` : '';
  const next = page < lastPage ? html`<a href="${link(page + 1)}">Next page</a>` : '';
  return html`<nav aria-label="Pages" class="pager">${previous}<span>Page ${page} of ${lastPage}</span>${next}</nav>`;
}
