import { createParamDecorator, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ACCESS_REQUIREMENT, type AccessRequirement } from '#auth';
import { DashboardSessions, roleAllows, type Actor, type AuditEvent, type DashboardPermission, type DashboardSession } from '#dashboard';
import { clientAddress, csrfMatches, offeredCsrf, PageForbidden, readCookie, SAFE_METHODS, SessionCookies, SignInRequired } from '#web';
import type { DashboardRequest } from './dashboard-request.js';

const PUBLIC_PAGE = 'dashboard:public';
const PERMISSION = 'dashboard:permission';
const CSRF_AFTER_UPLOAD = 'dashboard:csrf-after-upload';

/** Reachable without a session: sign-in, accept-invite, static assets. */
export const PublicPage = () => SetMetadata(PUBLIC_PAGE, true);
/** The role permission a page or action needs (roles.ts holds the matrix). */
export const RequirePermission = (permission: DashboardPermission) => SetMetadata(PERMISSION, permission);
/** Multipart forms are parsed after guards run, so their CSRF token is checked by CsrfAfterUpload instead. */
export const CsrfInMultipartBody = () => SetMetadata(CSRF_AFTER_UPLOAD, true);

/**
 * Deny by default: every route needs a live session cookie unless marked public. Only the
 * session cookie authenticates; an Authorization header (an API token) is ignored here, as a
 * dashboard session is ignored by the gateways. State-changing requests also need the session's
 * CSRF token, and every page's permission is checked against the user's role on the server.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: DashboardSessions,
    private readonly cookies: SessionCookies,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_PAGE, targets)) return true;
    // Health and metrics are marked public with the gateways' decorator (shared ObservabilityModule).
    if (this.reflector.getAllAndOverride<AccessRequirement>(ACCESS_REQUIREMENT, targets)?.kind === 'public') return true;

    const request = context.switchToHttp().getRequest<DashboardRequest>();
    const session = await this.sessions.resolve(readCookie(request, this.cookies.session));
    if (!session) throw new SignInRequired();
    request.dashboard = session;

    if (!SAFE_METHODS.has(request.method) && !this.reflector.getAllAndOverride<boolean>(CSRF_AFTER_UPLOAD, targets)) {
      if (!csrfMatches(session.csrfToken, offeredCsrf(request))) throw new PageForbidden('The form has expired or did not come from this dashboard. Go back, reload the page and try again.');
    }
    const permission = this.reflector.getAllAndOverride<DashboardPermission | undefined>(PERMISSION, targets);
    if (permission && !roleAllows(session.role, permission)) throw new PageForbidden(`Your role (${session.role}) does not allow this.`);
    return true;
  }
}

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
