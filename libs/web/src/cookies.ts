import type { Response } from 'express';
import { randomSecret } from './secrets.js';

/**
 * Cookie names and flags of one signed-in web app (the vendor dashboard: `dash`, the staff
 * back-office: `staff`, so neither app's cookie means anything to the other). Outside
 * development the cookies are Secure and use the `__Host-` prefix, which browsers only accept
 * with Secure, Path=/ and no Domain, so a sibling subdomain cannot plant or overwrite them.
 */
export class SessionCookies {
  readonly secure: boolean;
  readonly session: string;
  /** Pre-session double-submit token that protects the sign-in and invite forms against login CSRF. */
  readonly preSession: string;
  /** One sealed notice for the page a form redirects to (flash.ts), read once. */
  readonly flash: string;

  constructor(config: { APP_ENV: string }, name: string) {
    this.secure = config.APP_ENV !== 'development';
    const prefix = this.secure ? '__Host-' : '';
    this.session = `${prefix}${name}_session`;
    this.preSession = `${prefix}${name}_pre`;
    this.flash = `${prefix}${name}_flash`;
  }

  setSession(response: Response, secret: string, expiresAt: Date): void {
    response.cookie(this.session, secret, { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/', expires: expiresAt });
  }

  /** Signing out (the session row already ended): the cookie goes and the browser returns to the sign-in page. */
  signOut(response: Response): void {
    response.clearCookie(this.session, { httpOnly: true, secure: this.secure, sameSite: 'lax', path: '/' });
    response.redirect(303, '/sign-in');
  }

  /** A fresh pre-session value, set as the cookie; the form carries it back as `_pre`. */
  newPreSession(response: Response): string {
    const value = randomSecret();
    response.cookie(this.preSession, value, { httpOnly: true, secure: this.secure, sameSite: 'strict', path: '/', maxAge: 3_600_000 });
    return value;
  }
}
