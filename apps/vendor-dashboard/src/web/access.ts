import { Injectable, SetMetadata, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DashboardSessions, roleAllows, type Actor, type AuditEvent, type DashboardPermission, type DashboardSession } from '#dashboard';
import { clientAddress, PAGE_PERMISSION, PageForbidden, PageGuard, SessionCookies } from '#web';
import type { DashboardRequest } from './dashboard-request.js';

/** The role permission a page or action needs (roles.ts holds the matrix); a page without one is open to every role. */
export const RequirePermission = (permission: DashboardPermission) => SetMetadata(PAGE_PERMISSION, permission);

/** The #web PageGuard with the dashboard's sessions, cookie and role matrix (a dashboard session is ignored by the gateways in turn). */
@Injectable()
export class SessionGuard extends PageGuard<DashboardSession, DashboardPermission> {
  protected readonly permissionRequired = false;

  constructor(reflector: Reflector, sessions: DashboardSessions, cookies: SessionCookies) {
    super(reflector, sessions, cookies, 'The form has expired or did not come from this dashboard. Go back, reload the page and try again.');
  }

  protected allows(session: DashboardSession, permission: DashboardPermission): boolean {
    return roleAllows(session.role, permission);
  }

  /** When the owners require two-step sign-in, whoever has not set it up reaches only their account page (and signing out) until they do. */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    await super.canActivate(context);
    const request = context.switchToHttp().getRequest<DashboardRequest>();
    if (request.signedIn?.mustEnrolTwoStep && !STILL_OPEN_BEFORE_TWO_STEP.test(request.path)) {
      throw new PageForbidden('Your team requires two-step sign-in. Set it up on Your account first; the other pages open once it is on.');
    }
    return true;
  }
}

/** Where a person who must set up two-step sign-in may go: their account page and its forms, signing out, and `/` (which only redirects). */
const STILL_OPEN_BEFORE_TWO_STEP = /^\/(account(\/.*)?|sign-out(-everywhere)?|assets\/.*)?$/;

/** The signed-in person as the actor of a change to the team or their account, from the request's address. */
export function actorOf(session: DashboardSession, request: DashboardRequest): Actor {
  return { userId: session.userId, label: session.email, address: clientAddress(request) };
}

/** An audit event by the signed-in person, from the request's address. */
export function auditEvent(session: DashboardSession, request: DashboardRequest, event: Pick<AuditEvent, 'action' | 'subject' | 'details'>): AuditEvent {
  return { vendorId: session.vendorId, actorUserId: session.userId, actor: session.email, address: clientAddress(request), ...event };
}
