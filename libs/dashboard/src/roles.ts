/** Dashboard roles (docs/DASHBOARD.md). A user belongs to exactly one vendor with one role. */
export const DASHBOARD_ROLES = ['owner', 'developer', 'finance', 'viewer'] as const;
export type DashboardRole = (typeof DASHBOARD_ROLES)[number];

export const DASHBOARD_PERMISSIONS = [
  'purchases:read',
  'fulfilment:reveal',
  'payouts:read',
  'payouts:write',
  'reports:read',
  'tokens:manage',
  'webhooks:manage',
  'team:manage',
  'audit:read',
] as const;
export type DashboardPermission = (typeof DASHBOARD_PERMISSIONS)[number];

/**
 * The one role matrix: every page and action declares the permission it needs and the session
 * guard checks it on the server. Read access is shared; writes are split by job.
 */
export const ROLE_PERMISSIONS: Record<DashboardRole, readonly DashboardPermission[]> = {
  owner: DASHBOARD_PERMISSIONS,
  // Webhook endpoints are the integration, like tokens: who may mint a token with `webhooks:write` may manage them here.
  developer: ['purchases:read', 'payouts:read', 'reports:read', 'tokens:manage', 'webhooks:manage'],
  finance: ['purchases:read', 'fulfilment:reveal', 'payouts:read', 'payouts:write', 'reports:read'],
  viewer: ['purchases:read', 'payouts:read', 'reports:read'],
};

export function isDashboardRole(value: unknown): value is DashboardRole {
  return typeof value === 'string' && (DASHBOARD_ROLES as readonly string[]).includes(value);
}

export function roleAllows(role: DashboardRole, permission: DashboardPermission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

/**
 * API abilities that do in the API what a dashboard permission guards on the dashboard: reading
 * a purchase's PIN or eSIM (`fulfilment:read`), sending payouts (`payouts:write`) and reading
 * payout vouchers (`payouts:delivery`, a secret like a PIN, and only useful with payouts sent).
 * A token made on the dashboard carries one of them only when its creator's role holds every
 * permission listed, so a role cannot reach through a token what the dashboard refuses it. The
 * other abilities are the integration itself (catalogue, quotes, purchases, reads, webhooks),
 * which `tokens:manage` exists to hand out.
 */
export const TOKEN_ABILITY_PERMISSIONS: Readonly<Record<string, readonly DashboardPermission[]>> = {
  'fulfilment:read': ['fulfilment:reveal'],
  'payouts:write': ['payouts:write'],
  'payouts:delivery': ['payouts:write', 'fulfilment:reveal'],
};

/** Whether a person of this role may put the API ability on a token they create. */
export function roleMayGrantAbility(role: DashboardRole, ability: string): boolean {
  return (TOKEN_ABILITY_PERMISSIONS[ability] ?? []).every((permission) => roleAllows(role, permission));
}
