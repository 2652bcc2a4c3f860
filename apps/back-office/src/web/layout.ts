import type { Response } from 'express';
import { staffRoleAllows, type StaffPermission, type StaffSession } from '#staff';
import { html, pageShell, type SafeHtml } from '#web';

export interface PageOptions {
  title: string;
  session?: StaffSession;
  body: SafeHtml;
  /** Path of the current section, marked with aria-current in the navigation. */
  current?: string;
}

const SECTIONS: { path: string; label: string; permission?: StaffPermission }[] = [
  { path: '/', label: 'Overview', permission: 'queues:read' },
  { path: '/queues/purchases', label: 'Purchases in review', permission: 'queues:read' },
  { path: '/queues/payouts', label: 'Payouts in review', permission: 'queues:read' },
  { path: '/vendors', label: 'Vendors', permission: 'queues:read' },
  { path: '/pricing', label: 'Pricing', permission: 'queues:read' },
  { path: '/proposals', label: 'Proposals', permission: 'queues:read' },
  { path: '/audit', label: 'Audit trail', permission: 'audit:read' },
  { path: '/staff', label: 'Staff', permission: 'staff:manage' },
];

/** The hidden CSRF field every state-changing form carries. */
export const csrfField = (session: StaffSession) => html`<input type="hidden" name="_csrf" value="${session.csrfToken}">`;

/** One page: skip link, landmarks, the sections the role may open, the sign-out form. */
export function layout(options: PageOptions): SafeHtml {
  const { session } = options;
  return pageShell({
    brand: 'Staff back-office',
    assets: { css: '/assets/back-office.css', js: '/assets/back-office.js' },
    headerClass: 'staff',
    title: options.title,
    current: options.current,
    body: options.body,
    sections: session ? SECTIONS.filter((section) => !section.permission || staffRoleAllows(session.role, section.permission)) : undefined,
    who: session
      ? html`
      <div class="who"><span>${session.email} · ${session.role}</span>
        <form method="post" action="/sign-out">${csrfField(session)}<button type="submit">Sign out</button></form>
      </div>`
      : undefined,
  });
}

/** Sends one page: the layout around the options' body, as HTML, with `status` when given (otherwise the route's). */
export function sendPage(response: Response, options: PageOptions, status?: number): void {
  if (status !== undefined) response.status(status);
  response.type('html').send(layout(options).value);
}
