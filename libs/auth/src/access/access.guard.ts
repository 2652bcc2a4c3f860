import { Injectable, Logger, Optional, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard, AuthModuleOptions } from '@nestjs/passport';
import type { Request } from 'express';
import { ForbiddenError, UnauthenticatedError } from '#common';
import type { AuthenticatedToken } from '../tokens/token.service.js';
import { ACCESS_REQUIREMENT, type AccessRequirement } from './access.decorators.js';

/**
 * Global guard, deny by default: a route is reachable only if it declares @Public(),
 * @RequireAbilities(...) or @RequireScopes(...). A required ability must be on the token and
 * still enabled on the vendor at the moment of use. Authentication is @nestjs/passport's
 * AuthGuard over this app's BearerStrategy (AuthModule makes it the default strategy).
 */
@Injectable()
export class AccessGuard extends AuthGuard() {
  private readonly logger = new Logger(AccessGuard.name);

  // The options (this app's default strategy) go to AuthGuard's constructor, which checks them there.
  constructor(
    private readonly reflector: Reflector,
    @Optional() options?: AuthModuleOptions,
  ) {
    super(options);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const requirement = this.reflector.getAllAndOverride<AccessRequirement | undefined>(ACCESS_REQUIREMENT, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!requirement) {
      this.logger.error(`Route ${context.getClass().name}.${context.getHandler().name} declares no access requirement; denied`);
      throw new ForbiddenError();
    }
    if (requirement.kind === 'public') return true;

    const request = context.switchToHttp().getRequest<Request & { user?: AuthenticatedToken }>();
    // passport-http-bearer also reads access_token from the query string and body; tokens in
    // URLs end up in proxy logs, so only the Authorization header is accepted.
    if (request.query?.access_token !== undefined || (request.body as Record<string, unknown> | undefined)?.access_token !== undefined) {
      throw new UnauthenticatedError();
    }
    await super.canActivate(context);
    const principal = request.user as AuthenticatedToken;
    const missing = requirement.required.filter((ability) => !principal.abilities.includes(ability));
    if (missing.length > 0) throw new ForbiddenError(missing);
    return true;
  }

  override handleRequest<TUser>(error: unknown, user: TUser | false): TUser {
    // An error is not a bad token: the token lookup itself failed (e.g. the database is down).
    // Rethrown, the filter answers 503 for an outage, instead of telling the client to drop a valid token.
    if (error) throw error;
    if (!user) throw new UnauthenticatedError();
    return user;
  }
}
