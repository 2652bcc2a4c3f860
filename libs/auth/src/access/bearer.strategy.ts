import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { randomUUID } from 'node:crypto';
import passport from 'passport';
import { Strategy } from 'passport-http-bearer';
import type { AuthenticatedToken } from '../tokens/token.service.js';
import { TokenAuthenticationCache } from './token-cache.js';

/**
 * passport-http-bearer through @nestjs/passport, its verify step a lookup through the exact token
 * cache. Passport's strategy registry is process-wide, so each app instance registers under a name
 * of its own (AuthModule hands it to the guard as the default strategy): two apps in one process,
 * as in the tests, never authenticate through each other's cache or database connection.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy) implements OnModuleDestroy {
  readonly strategyName = `bearer:${randomUUID()}`;

  constructor(private readonly tokens: TokenAuthenticationCache) {
    super();
    // The mixin has just registered this instance under the library's shared name 'bearer';
    // nothing authenticates by that name, so it is moved to this app's own.
    passport.unuse(this.name);
    passport.use(this.strategyName, this);
  }

  /** The request's token, false for none or an unknown one; a failed lookup (database down) throws. */
  async validate(secret: string): Promise<AuthenticatedToken | false> {
    return (await this.tokens.authenticate(secret)) ?? false;
  }

  onModuleDestroy(): void {
    passport.unuse(this.strategyName);
  }
}
