import { createParamDecorator, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
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

/** An Express request after the app's PageGuard: `signedIn` is set on every non-public page. */
export interface SignedInRequest<Session> extends Request {
  signedIn?: Session;
}

/** The signed-in session of a guarded route. */
export function sessionOf<Session>(request: SignedInRequest<Session>): Session {
  if (!request.signedIn) throw new SignInRequired();
  return request.signedIn;
}

/** The signed-in session as a route handler's parameter. */
export const CurrentSession = createParamDecorator((_data: unknown, context: ExecutionContext) => sessionOf(context.switchToHttp().getRequest<SignedInRequest<unknown>>()));

/**
 * The guard of both signed-in apps, deny by default: every route needs a live session cookie of
 * this app unless marked public; an Authorization header (an API token) and the other app's
 * cookie are never read. State-changing requests also need the session's CSRF token, and the
 * route's permission is checked against the user's role on the server.
 */
export abstract class PageGuard<Session extends { csrfToken: string; role: string }, Permission> implements CanActivate {
  /** Whether a route without a permission is refused (a forgotten decorator fails closed) rather than open to every role. */
  protected abstract readonly permissionRequired: boolean;

  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: { resolve(secret: string | undefined): Promise<Session | null> },
    private readonly cookies: SessionCookies,
    /** The refusal of a state-changing request that lacks the session's CSRF token. */
    private readonly csrfRefusal: string,
  ) {}

  protected abstract allows(session: Session, permission: Permission): boolean;

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_PAGE, targets)) return true;
    // Health and metrics are marked public with the gateways' decorator (shared ObservabilityModule).
    if (this.reflector.getAllAndOverride<AccessRequirement>(ACCESS_REQUIREMENT, targets)?.kind === 'public') return true;

    const request = context.switchToHttp().getRequest<SignedInRequest<Session>>();
    const session = await this.sessions.resolve(readCookie(request, this.cookies.session));
    if (!session) throw new SignInRequired();
    request.signedIn = session;

    if (!SAFE_METHODS.has(request.method) && !this.reflector.getAllAndOverride<boolean>(CSRF_AFTER_UPLOAD, targets)) {
      if (!csrfMatches(session.csrfToken, offeredCsrf(request))) throw new PageForbidden(this.csrfRefusal);
    }
    const permission = this.reflector.getAllAndOverride<Permission | undefined>(PAGE_PERMISSION, targets);
    if (!permission && this.permissionRequired) throw new PageForbidden('This page declares no permission.');
    if (permission && !this.allows(session, permission)) throw new PageForbidden(`Your role (${session.role}) does not allow this.`);
    return true;
  }
}
