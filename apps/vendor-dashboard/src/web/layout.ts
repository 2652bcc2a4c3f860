import type { Response } from 'express';
import { roleAllows, type DashboardPermission, type DashboardSession } from '#dashboard';
import { html, pageShell, type SafeHtml } from '#web';

export interface PageOptions {
  title: string;
  session?: DashboardSession;
  body: SafeHtml;
  /** Path of the current section, marked with aria-current in the navigation. */
  current?: string;
}

const SECTIONS: { path: string; label: string; permission?: DashboardPermission }[] = [
  { path: '/purchases', label: 'Purchases', permission: 'purchases:read' },
  { path: '/spend', label: 'Spend', permission: 'reports:read' },
  { path: '/payouts', label: 'Payouts', permission: 'payouts:read' },
  { path: '/batches', label: 'Batches', permission: 'payouts:read' },
  { path: '/tokens', label: 'API tokens', permission: 'tokens:manage' },
  { path: '/team', label: 'Team', permission: 'team:manage' },
  { path: '/audit', label: 'Audit log', permission: 'audit:read' },
  { path: '/account', label: 'Your account' },
];

/** The hidden CSRF field every state-changing form carries. */
export const csrfField = (session: DashboardSession) => html`<input type="hidden" name="_csrf" value="${session.csrfToken}">`;

/** One page: skip link, landmarks, the sections the role may open, the sign-out forms. */
export function layout(options: PageOptions): SafeHtml {
  const { session } = options;
  return pageShell({
    brand: 'Vendor dashboard',
    assets: { css: '/assets/dashboard.css', js: '/assets/dashboard.js' },
    title: options.title,
    current: options.current,
    body: options.body,
    sections: session ? SECTIONS.filter((section) => !section.permission || roleAllows(session.role, section.permission)) : undefined,
    who: session
      ? html`
      <div class="who"><span>${session.email} · ${session.role} · ${session.vendorName}</span>
        <form method="post" action="/sign-out">${csrfField(session)}<button type="submit">Sign out</button></form>
        <form method="post" action="/sign-out-everywhere">${csrfField(session)}<button type="submit">Sign out everywhere</button></form>
      </div>`
      : undefined,
  });
}

/** Sends one page: the layout around the options' body, as HTML, with `status` when given (otherwise the route's). */
export function sendPage(response: Response, options: PageOptions, status?: number): void {
  if (status !== undefined) response.status(status);
  response.type('html').send(layout(options).value);
}
