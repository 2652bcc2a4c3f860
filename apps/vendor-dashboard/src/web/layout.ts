import { roleAllows, type DashboardPermission, type DashboardSession } from '#dashboard';
import { appLayout } from '#web';

const SECTIONS: { path: string; label: string; permission?: DashboardPermission }[] = [
  { path: '/purchases', label: 'Purchases', permission: 'purchases:read' },
  { path: '/spend', label: 'Spend', permission: 'reports:read' },
  { path: '/payouts', label: 'Payouts', permission: 'payouts:read' },
  { path: '/batches', label: 'Batches', permission: 'payouts:read' },
  { path: '/statement', label: 'Statement', permission: 'payouts:read' },
  { path: '/search', label: 'Search' },
  { path: '/tokens', label: 'API tokens', permission: 'tokens:manage' },
  { path: '/webhooks', label: 'Webhooks', permission: 'webhooks:manage' },
  { path: '/team', label: 'Team', permission: 'team:manage' },
  { path: '/audit', label: 'Audit log', permission: 'audit:read' },
  { path: '/account', label: 'Your account' },
];

/** The dashboard's pages: the sections the role may open, and signing out here or everywhere. */
export const { layout, sendPage } = appLayout<DashboardSession>({
  brand: 'Vendor dashboard',
  assets: { css: '/assets/dashboard.css', js: '/assets/dashboard.js' },
  sections: (session) => SECTIONS.filter((section) => !section.permission || roleAllows(session.role, section.permission)),
  who: (session) => `${session.email} · ${session.role} · ${session.vendorName}`,
  signOut: [
    { action: '/sign-out', label: 'Sign out' },
    { action: '/sign-out-everywhere', label: 'Sign out everywhere' },
  ],
});
