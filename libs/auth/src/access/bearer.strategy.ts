import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import passport from 'passport';
import { Strategy } from 'passport-http-bearer';
import type { AuthenticatedToken } from '../tokens/token.service.js';
import { TokenAuthenticationCache } from './token-cache.js';

/**
 * passport-http-bearer on this app's own Passport instance, its verify step a lookup through the
 * exact token cache. Not the process-wide `passport` (which @nestjs/passport strategies register
 * on): two apps in one process, as in the tests, would then share the last one's strategy and cache.
 */
@Injectable()
export class BearerAuthentication {
  private readonly passport = new passport.Passport();

  constructor(tokens: TokenAuthenticationCache) {
    this.passport.use(
      'bearer',
      new Strategy((secret, done) => {
        tokens.authenticate(secret).then((token) => done(null, token ?? false), done);
      }),
    );
  }

  /** The request's token, false for none or an unknown one; a failed lookup (database down) rejects. */
  authenticate(request: Request, response: Response): Promise<AuthenticatedToken | false> {
    return new Promise((resolve, reject) => {
      const authenticate = this.passport.authenticate('bearer', { session: false }, (error: unknown, token: AuthenticatedToken | false) => (error ? reject(error) : resolve(token)));
      authenticate(request, response, reject);
    });
  }
}
