import { staffRoleAllows, type StaffPermission, type StaffSession } from '#staff';
import { html, type SafeHtml } from '#web';

export interface PageOptions {
  title: string;
  session?: StaffSession;
  body: SafeHtml;
  /** Path of the current section, marked with aria-current in the navigation. */
  current?: string;
}

const SECTIONS: { path: string; label: string; permission?: StaffPermission }[] = [
  { path: '/', label: 'Overview', permission: 'queues:read' },
  { path: '/proposals', label: 'Proposals', permission: 'queues:read' },
  { path: '/audit', label: 'Audit trail', permission: 'audit:read' },
  { path: '/staff', label: 'Staff', permission: 'staff:manage' },
];

/** The hidden CSRF field every state-changing form carries. */
export const csrfField = (session: StaffSession) => html`<input type="hidden" name="_csrf" value="${session.csrfToken}">`;

/** One page: skip link, landmarks, the sections the role may open, the sign-out form. */
export function layout(options: PageOptions): SafeHtml {
  const { session } = options;
  const nav = session
    ? html`<nav aria-label="Main"><ul>${SECTIONS.filter((section) => !section.permission || staffRoleAllows(session.role, section.permission)).map(
        (section) => html`<li><a href="${section.path}"${options.current === section.path ? html` aria-current="page"` : ''}>${section.label}</a></li>`,
      )}</ul></nav>
      <div class="who"><span>${session.email} · ${session.role}</span>
        <form method="post" action="/sign-out">${csrfField(session)}<button type="submit">Sign out</button></form>
      </div>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Staff back-office</title>
<link rel="stylesheet" href="/assets/back-office.css">
<script src="/assets/back-office.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="staff"><p class="brand">Staff back-office</p>${nav}</header>
<main id="main" tabindex="-1">
<h1>${options.title}</h1>
${options.body}
</main>
</body>
</html>`;
}
