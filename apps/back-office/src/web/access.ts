import { Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { StaffSessions, staffRoleAllows, type StaffPermission, type StaffSession } from '#staff';
import { PAGE_PERMISSION, PageGuard, SessionCookies } from '#web';

/** The staff permission a page or action needs (libs/staff/src/model/staff-roles.ts holds the matrix). */
export const RequireStaffPermission = (permission: StaffPermission) => SetMetadata(PAGE_PERMISSION, permission);
/** Any signed-in staff member (sign-out, the home page). */
export const AnyStaff = () => SetMetadata(PAGE_PERMISSION, 'signed-in');

/**
 * The #web PageGuard with staff sessions and cookie: every route that is not public must name its
 * permission (a route without one is refused, so a forgotten decorator fails closed). The vendor
 * dashboard's cookie and vendor API tokens are never read.
 */
@Injectable()
export class StaffGuard extends PageGuard<StaffSession, StaffPermission | 'signed-in'> {
  protected readonly permissionRequired = true;

  constructor(reflector: Reflector, sessions: StaffSessions, cookies: SessionCookies) {
    super(reflector, sessions, cookies, 'The form has expired or did not come from the back-office. Go back, reload the page and try again.');
  }

  protected allows(session: StaffSession, permission: StaffPermission | 'signed-in'): boolean {
    return permission === 'signed-in' || staffRoleAllows(session.role, permission);
  }
}
