import { staffRoleAllows, type StaffPermission, type StaffSession } from '#staff';
import { appLayout } from '#web';

export { csrfField } from '#web';

const SECTIONS: { path: string; label: string; permission?: StaffPermission }[] = [
  { path: '/', label: 'Overview', permission: 'queues:read' },
  { path: '/search', label: 'Search', permission: 'queues:read' },
  { path: '/queues/purchases', label: 'Purchases in review', permission: 'queues:read' },
  { path: '/queues/payouts', label: 'Payouts in review', permission: 'queues:read' },
  { path: '/exceptions', label: 'Exceptions', permission: 'queues:read' },
  { path: '/vendors', label: 'Vendors', permission: 'queues:read' },
  { path: '/pricing', label: 'Pricing', permission: 'queues:read' },
  { path: '/proposals', label: 'Proposals', permission: 'queues:read' },
  { path: '/close', label: 'Close', permission: 'queues:read' },
  { path: '/audit', label: 'Audit trail', permission: 'audit:read' },
  { path: '/staff', label: 'Staff', permission: 'staff:manage' },
];

/** The back-office's pages: the sections the role may open, and the sign-out form. */
export const { layout, sendPage } = appLayout<StaffSession>({
  brand: 'Staff back-office',
  assets: { css: '/assets/back-office.css', js: '/assets/back-office.js' },
  headerClass: 'staff',
  sections: (session) => SECTIONS.filter((section) => !section.permission || staffRoleAllows(session.role, section.permission)),
  who: (session) => `${session.email} · ${session.role}`,
  signOut: [{ action: '/sign-out', label: 'Sign out' }],
});
