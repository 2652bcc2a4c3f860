import type { Response } from 'express';
import type { GatewayEnv } from '#config';

/**
 * Cookie names and flags. Outside development the cookies are Secure and use the `__Host-`
 * prefix, which browsers only accept with Secure, Path=/ and no Domain, so a sibling subdomain
 * cannot plant or overwrite them.
 */
export class DashboardCookies {
  readonly secure: boolean;
  readonly session: string;
  /** Pre-session double-submit token that protects the sign-in and invite forms against login CSRF. */
  readonly preSession: string;

  constructor(config: Pick<GatewayEnv, 'APP_ENV'>) {
    this.secure = config.APP_ENV !== 'development';
    const prefix = this.secure ? '__Host-' : '';
    this.session = `${prefix}dash_session`;
    this.preSession = `${prefix}dash_pre`;
  }

  setSession(response: Response, secret: string, expiresAt: Date): void {
    response.cookie(this.session, secret, { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/', expires: expiresAt });
  }

  clearSession(response: Response): void {
    response.clearCookie(this.session, { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/' });
  }

  setPreSession(response: Response, value: string): void {
    response.cookie(this.preSession, value, { httpOnly: true, secure: this.secure, sameSite: 'strict', path: '/', maxAge: 3_600_000 });
  }
}
