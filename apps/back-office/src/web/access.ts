import { SetMetadata, type Provider } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { StaffSessions, staffRoleAllows, type StaffPermission, type StaffSession } from '#staff';
import { PAGE_PERMISSION, PageGuard, SessionCookies } from '#web';
import type { StaffRequest } from './staff-request.js';

/** The staff permission a page or action needs (libs/staff/src/model/staff-roles.ts holds the matrix). */
export const RequireStaffPermission = (permission: StaffPermission) => SetMetadata(PAGE_PERMISSION, permission);
/** Any signed-in staff member (sign-out, the home page). */
export const AnyStaff = () => SetMetadata(PAGE_PERMISSION, 'signed-in');

/**
 * The #web PageGuard with staff sessions and cookie: every route that is not public must name its
 * permission (a route without one is refused, so a forgotten decorator fails closed). The vendor
 * dashboard's cookie and vendor API tokens are never read.
 */
export const staffGuard: Provider = {
  provide: APP_GUARD,
  inject: [Reflector, StaffSessions, SessionCookies],
  useFactory: (reflector: Reflector, sessions: StaffSessions, cookies: SessionCookies) =>
    new PageGuard<StaffSession, StaffPermission | 'signed-in'>(reflector, {
      sessions,
      cookies,
      attach: (request: StaffRequest, session) => (request.staff = session),
      csrfRefusal: 'The form has expired or did not come from the back-office. Go back, reload the page and try again.',
      permissionRequired: true,
      allows: (session, permission) => permission === 'signed-in' || staffRoleAllows(session.role, permission),
    }),
};
