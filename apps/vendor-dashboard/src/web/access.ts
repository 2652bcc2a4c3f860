import { createParamDecorator, SetMetadata, type ExecutionContext, type Provider } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { DashboardSessions, roleAllows, type Actor, type AuditEvent, type DashboardPermission, type DashboardSession } from '#dashboard';
import { clientAddress, PAGE_PERMISSION, PageGuard, SessionCookies, SignInRequired } from '#web';
import type { DashboardRequest } from './dashboard-request.js';

/** The role permission a page or action needs (roles.ts holds the matrix); a page without one is open to every role. */
export const RequirePermission = (permission: DashboardPermission) => SetMetadata(PAGE_PERMISSION, permission);

/** The #web PageGuard with the dashboard's sessions, cookie and role matrix, as a dashboard session is ignored by the gateways. */
export const sessionGuard: Provider = {
  provide: APP_GUARD,
  inject: [Reflector, DashboardSessions, SessionCookies],
  useFactory: (reflector: Reflector, sessions: DashboardSessions, cookies: SessionCookies) =>
    new PageGuard<DashboardSession, DashboardPermission>(reflector, {
      sessions,
      cookies,
      attach: (request: DashboardRequest, session) => (request.dashboard = session),
      csrfRefusal: 'The form has expired or did not come from this dashboard. Go back, reload the page and try again.',
      permissionRequired: false,
      allows: (session, permission) => roleAllows(session.role, permission),
    }),
};

/** The signed-in session of a guarded route. */
export function sessionOf(request: DashboardRequest) {
  if (!request.dashboard) throw new SignInRequired();
  return request.dashboard;
}

/** The signed-in session as a route handler's parameter. */
export const CurrentSession = createParamDecorator((_data: unknown, context: ExecutionContext) => sessionOf(context.switchToHttp().getRequest<DashboardRequest>()));

/** The signed-in person as the actor of a change to the team or their account, from the request's address. */
export function actorOf(session: DashboardSession, request: DashboardRequest): Actor {
  return { userId: session.userId, label: session.email, address: clientAddress(request) };
}

/** An audit event by the signed-in person, from the request's address. */
export function auditEvent(session: DashboardSession, request: DashboardRequest, event: Pick<AuditEvent, 'action' | 'subject' | 'details'>): AuditEvent {
  return { vendorId: session.vendorId, actorUserId: session.userId, actor: session.email, address: clientAddress(request), ...event };
}
