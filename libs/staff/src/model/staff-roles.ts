/** Staff roles (docs/BACK-OFFICE.md). A staff user has exactly one. */
export const STAFF_ROLES = ['support', 'operator', 'approver', 'admin'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export const STAFF_PERMISSIONS = [
  /** Review queues, items and their provider history, vendors, proposals. */
  'queues:read',
  /** The staff audit trail. */
  'audit:read',
  /** "Check the provider now": a fresh verified lookup, moving an item only as the worker would. */
  'items:check',
  /** Propose a money decision (a manual resolution), with a written reason. */
  'actions:propose',
  /** Approve or reject another person's money proposal. */
  'actions:approve',
  /** Staff accounts: list, propose role changes, approve another admin's, disable, reset the second factor. */
  'staff:manage',
] as const;
export type StaffPermission = (typeof STAFF_PERMISSIONS)[number];

/**
 * The one role matrix, enforced by the back-office guard from each route's permission. Everyone
 * reads; operators propose; approvers propose and approve others' proposals; admins manage staff
 * and nothing that moves money, so creating accounts and approving payments stay with different people.
 */
export const STAFF_ROLE_PERMISSIONS: Record<StaffRole, readonly StaffPermission[]> = {
  support: ['queues:read', 'audit:read'],
  operator: ['queues:read', 'audit:read', 'items:check', 'actions:propose'],
  approver: ['queues:read', 'audit:read', 'items:check', 'actions:propose', 'actions:approve'],
  admin: ['queues:read', 'audit:read', 'staff:manage'],
};

export function isStaffRole(value: unknown): value is StaffRole {
  return typeof value === 'string' && (STAFF_ROLES as readonly string[]).includes(value);
}

export function staffRoleAllows(role: StaffRole, permission: StaffPermission): boolean {
  return STAFF_ROLE_PERMISSIONS[role].includes(permission);
}

/** The roles holding a permission: what the database's guarded updates check a decider against. */
export function rolesWith(permission: StaffPermission): StaffRole[] {
  return STAFF_ROLES.filter((role) => staffRoleAllows(role, permission));
}
