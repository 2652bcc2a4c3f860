import { roleAllows, type DashboardPermission, type DashboardSession } from '#dashboard';
import { html, type SafeHtml } from './html.js';

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
  const nav = session
    ? html`<nav aria-label="Main"><ul>${SECTIONS.filter((section) => !section.permission || roleAllows(session.role, section.permission)).map(
        (section) => html`<li><a href="${section.path}"${options.current === section.path ? html` aria-current="page"` : ''}>${section.label}</a></li>`,
      )}</ul></nav>
      <div class="who"><span>${session.email} · ${session.role} · ${session.vendorName}</span>
        <form method="post" action="/sign-out">${csrfField(session)}<button type="submit">Sign out</button></form>
        <form method="post" action="/sign-out-everywhere">${csrfField(session)}<button type="submit">Sign out everywhere</button></form>
      </div>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Vendor dashboard</title>
<link rel="stylesheet" href="/assets/dashboard.css">
<script src="/assets/dashboard.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><p class="brand">Vendor dashboard</p>${nav}</header>
<main id="main" tabindex="-1">
<h1>${options.title}</h1>
${options.body}
</main>
</body>
</html>`;
}

export { errorSummary } from '#web';
