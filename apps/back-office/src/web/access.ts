import { Inject, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ACCESS_REQUIREMENT, type AccessRequirement } from '#auth';
import { StaffSessions, staffRoleAllows, type StaffPermission } from '#staff';
import { csrfMatches, offeredCsrf, PageForbidden, readCookie, SAFE_METHODS, SignInRequired } from '#web';
import { StaffCookies } from './cookies.js';
import type { StaffRequest } from './staff-request.js';

const PUBLIC_PAGE = 'back-office:public';
const PERMISSION = 'back-office:permission';

/** Reachable without a session: sign-in, the setup link, static assets. */
export const PublicPage = () => SetMetadata(PUBLIC_PAGE, true);
/** The staff permission a page or action needs (libs/staff/src/model/staff-roles.ts holds the matrix). */
export const RequireStaffPermission = (permission: StaffPermission) => SetMetadata(PERMISSION, permission);

/**
 * Deny by default: every route needs a live staff session cookie unless marked public, and
 * every route that is not public must name its permission (a route without one is refused, so a
 * forgotten decorator fails closed). Only the staff cookie authenticates: an Authorization
 * header (a vendor API token) and the vendor dashboard's cookie are never read. State-changing
 * requests also need the session's CSRF token.
 */
@Injectable()
export class StaffGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: StaffSessions,
    @Inject(StaffCookies) private readonly cookies: StaffCookies,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_PAGE, targets)) return true;
    // Health and metrics are marked public with the gateways' decorator (shared ObservabilityModule).
    if (this.reflector.getAllAndOverride<AccessRequirement>(ACCESS_REQUIREMENT, targets)?.kind === 'public') return true;

    const request = context.switchToHttp().getRequest<StaffRequest>();
    const session = await this.sessions.resolve(readCookie(request, this.cookies.session));
    if (!session) throw new SignInRequired();
    request.staff = session;

    if (!SAFE_METHODS.has(request.method) && !csrfMatches(session.csrfToken, offeredCsrf(request))) {
      throw new PageForbidden('The form has expired or did not come from the back-office. Go back, reload the page and try again.');
    }
    const permission = this.reflector.getAllAndOverride<StaffPermission | 'signed-in' | undefined>(PERMISSION, targets);
    if (!permission) throw new PageForbidden('This page declares no permission.');
    if (permission !== 'signed-in' && !staffRoleAllows(session.role, permission)) throw new PageForbidden(`Your role (${session.role}) does not allow this.`);
    return true;
  }
}

/** Any signed-in staff member (sign-out, the home page). */
export const AnyStaff = () => SetMetadata(PERMISSION, 'signed-in');
