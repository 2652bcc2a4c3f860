import { DASHBOARD_PERMISSIONS, DASHBOARD_ROLES, ROLE_PERMISSIONS, roleAllows, roleMayGrantAbility } from './roles.js';

describe('dashboard roles', () => {
  it('gives owners everything and keeps writes to their jobs', () => {
    expect(ROLE_PERMISSIONS.owner).toEqual(DASHBOARD_PERMISSIONS);
    expect(roleAllows('developer', 'tokens:manage')).toBe(true);
    expect(roleAllows('developer', 'payouts:write')).toBe(false);
    expect(roleAllows('finance', 'payouts:write')).toBe(true);
    expect(roleAllows('finance', 'tokens:manage')).toBe(false);
    expect(DASHBOARD_ROLES.filter((role) => roleAllows(role, 'webhooks:manage'))).toEqual(['owner', 'developer']);
    expect(DASHBOARD_PERMISSIONS.filter((permission) => roleAllows('viewer', permission))).toEqual(['purchases:read', 'payouts:read', 'reports:read']);
  });
});

describe('token abilities by role', () => {
  it('keeps the abilities a role cannot use on the dashboard off the tokens it creates', () => {
    expect(['fulfilment:read', 'payouts:write', 'payouts:delivery', 'transactions:write', 'payouts:read'].filter((ability) => roleMayGrantAbility('developer', ability))).toEqual([
      'transactions:write',
      'payouts:read',
    ]);
    expect(['fulfilment:read', 'payouts:write', 'payouts:delivery'].every((ability) => roleMayGrantAbility('owner', ability))).toBe(true);
  });
});
