import { SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ACCESS_REQUIREMENT, type AccessRequirement } from '#common';
import type { SessionCookies } from './cookies.js';
import { PageForbidden, SignInRequired } from './page-errors.js';
import { csrfMatches, offeredCsrf, readCookie, SAFE_METHODS } from './requests.js';

const PUBLIC_PAGE = 'web:public';
const CSRF_AFTER_UPLOAD = 'web:csrf-after-upload';
/** The metadata key of the permission a page or action needs; each app's decorator sets it. */
export const PAGE_PERMISSION = 'web:permission';

/** Reachable without a session: sign-in, the invite or setup link, static assets. */
export const PublicPage = () => SetMetadata(PUBLIC_PAGE, true);
/** Multipart forms are parsed after guards run, so the handler checks their CSRF token itself. */
export const CsrfInMultipartBody = () => SetMetadata(CSRF_AFTER_UPLOAD, true);

/** What differs between the two signed-in apps' guards; the checks and their order are PageGuard's. */
export interface PageGuardOptions<Session, Permission> {
  sessions: { resolve(secret: string | undefined): Promise<Session | null> };
  /** Only this app's session cookie authenticates. */
  cookies: SessionCookies;
  /** Puts the session where the app's pages read it. */
  attach(request: Request, session: Session): void;
  /** The refusal of a state-changing request that lacks the session's CSRF token. */
  csrfRefusal: string;
  /** Whether a route without a permission is refused (fails closed) rather than open to any signed-in user. */
  permissionRequired: boolean;
  allows(session: Session, permission: Permission): boolean;
}

/**
 * Deny by default: every route needs a live session cookie unless marked public. An
 * Authorization header (an API token) and the other app's cookie are never read. State-changing
 * requests also need the session's CSRF token, and the route's permission is checked against the
 * user's role on the server.
 */
export class PageGuard<Session extends { csrfToken: string; role: string }, Permission> implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly options: PageGuardOptions<Session, Permission>,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_PAGE, targets)) return true;
    // Health and metrics are marked public with the gateways' decorator (shared ObservabilityModule).
    if (this.reflector.getAllAndOverride<AccessRequirement>(ACCESS_REQUIREMENT, targets)?.kind === 'public') return true;

    const request = context.switchToHttp().getRequest<Request>();
    const session = await this.options.sessions.resolve(readCookie(request, this.options.cookies.session));
    if (!session) throw new SignInRequired();
    this.options.attach(request, session);

    if (!SAFE_METHODS.has(request.method) && !this.reflector.getAllAndOverride<boolean>(CSRF_AFTER_UPLOAD, targets)) {
      if (!csrfMatches(session.csrfToken, offeredCsrf(request))) throw new PageForbidden(this.options.csrfRefusal);
    }
    const permission = this.reflector.getAllAndOverride<Permission | undefined>(PAGE_PERMISSION, targets);
    if (!permission && this.options.permissionRequired) throw new PageForbidden('This page declares no permission.');
    if (permission && !this.options.allows(session, permission)) throw new PageForbidden(`Your role (${session.role}) does not allow this.`);
    return true;
  }
}
