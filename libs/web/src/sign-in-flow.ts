import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { FieldEncryption } from '#common';
import type { SessionCookies } from './cookies.js';
import { signInFormBody } from './forms.js';
import { html, type SafeHtml } from './html.js';
import { PublicPage } from './page-guard.js';
import { clientAddress, preSessionMatches, readCookie, safeNext } from './requests.js';
import type { SignInLimiter } from './sign-in-limiter.js';
import { totpStep } from './totp.js';

/** The sign-in form's fields as posted (any of them may be missing or not a string). */
export interface SignInForm {
  email?: unknown;
  password?: unknown;
  totp?: unknown;
  _pre?: unknown;
}

/** What the sign-in form shows: where it goes next, the email typed and why it was refused. */
export interface SignInPageState {
  next: string;
  email?: string;
  errors?: Record<string, string[]>;
}

/** What differs between the two signed-in apps' sign-in; the steps and their order are SignInFlow's. */
export interface SignInParts<User> {
  /** The app's cookies: the pre-session one the form must match, and the session one set on success. */
  cookies: SessionCookies;
  limiter: SignInLimiter;
  /** Checks every factor; `refused` is the one message the form shows (401), whatever was wrong. */
  verify(attempt: { email: string; password: string; totp: unknown }): Promise<{ user: User } | { refused: string }>;
  /** The app's sessions: the one the browser already held (if its secret names one) ends. */
  sessions: { resolve(secret: string | undefined): Promise<{ id: string } | null>; end(id: string): Promise<void> };
  /** Starts the new session (fresh secret and CSRF token). */
  start(user: User): Promise<{ secret: string; expiresAt: Date }>;
  /** Records the sign-in in the app's audit trail, once the new session started. */
  audit(user: User, address: string): Promise<unknown>;
  /** The sign-in page: its title, how the code field is introduced (and whether it is required), what follows the form. */
  page: { title: string; totpLabel: SafeHtml; totpRequired: boolean; after: SafeHtml };
  /** The app's layout around a page without a session. */
  send(response: Response, page: { title: string; body: SafeHtml }, status: number): void;
}

/**
 * The sign-in of the vendor dashboard and the back-office, one flow for both: the form, then on
 * POST the gate (login CSRF, limiter), the factors, rotation (a session the browser held ends;
 * the new one has fresh secrets) and the redirect to the same-site target.
 */
export class SignInFlow<User> {
  constructor(private readonly parts: SignInParts<User>) {}

  /** The form, with a fresh pre-session cookie for it to carry back. */
  showForm(response: Response, status: number, state: SignInPageState): void {
    const { title, totpLabel, totpRequired, after } = this.parts.page;
    const form = signInFormBody({ next: state.next, pre: this.parts.cookies.newPreSession(response), email: state.email, errors: state.errors, totpLabel, totpRequired });
    this.parts.send(response, { title, body: html`${form}${after}` }, status);
  }

  async submit(request: Request, response: Response, form: SignInForm, next: unknown): Promise<void> {
    const { cookies, limiter } = this.parts;
    const email = typeof form.email === 'string' ? form.email.slice(0, 320) : '';
    const password = typeof form.password === 'string' ? form.password : '';
    const target = safeNext(next);
    const refuse = (status: number, message: string) => this.showForm(response, status, { next: target, email, errors: { _: [message] } });
    // Before any credential is read: the pre-session double submit (login CSRF), then the sign-in limiter (which fails closed).
    if (!preSessionMatches(request, cookies.preSession, form._pre)) return refuse(403, 'The sign-in form expired. Try again.');
    const address = clientAddress(request);
    const admission = await limiter.admit(email, address);
    if (!admission.allowed) {
      response.setHeader('Retry-After', String(admission.retryAfterSeconds));
      // 429 while limited, 503 while the limiter cannot count.
      const minutes = Math.ceil(admission.retryAfterSeconds / 60);
      if (admission.reason === 'limited') return refuse(429, `Too many sign-in attempts. Wait ${minutes} minutes and try again.`);
      return refuse(503, 'Sign-in is temporarily unavailable. Try again in a minute.');
    }
    const verdict = await this.parts.verify({ email, password, totp: form.totp });
    if ('refused' in verdict) return refuse(401, verdict.refused);
    await limiter.succeeded(email);
    const previous = await this.parts.sessions.resolve(readCookie(request, cookies.session));
    if (previous) await this.parts.sessions.end(previous.id);
    const { secret, expiresAt } = await this.parts.start(verdict.user);
    await this.parts.audit(verdict.user, address);
    cookies.setSession(response, secret, expiresAt);
    response.redirect(303, target);
  }
}

/**
 * GET and POST /sign-in, the same routes in both apps: each app's auth controller extends this
 * and hands it the app's SignInFlow.
 */
export abstract class SignInRoutes<User> {
  constructor(protected readonly signInFlow: SignInFlow<User>) {}

  @Get('sign-in')
  @PublicPage()
  signInPage(@Query('next') next: string | undefined, @Res() response: Response): void {
    this.signInFlow.showForm(response, 200, { next: safeNext(next) });
  }

  @Post('sign-in')
  @PublicPage()
  async signIn(@Body() form: SignInForm, @Query('next') next: string | undefined, @Req() request: Request, @Res() response: Response): Promise<void> {
    await this.signInFlow.submit(request, response, form, next);
  }
}

/**
 * Whether `code` is the current code of the sealed TOTP secret, after the last step used; the
 * step is then recorded through `use`, which is false when it (or a later one) was used already,
 * so a code is good once: a replayed (or concurrently raced) one is refused like a wrong one.
 */
export async function useTotpCode(
  encryption: FieldEncryption,
  sealed: { secret: string; context: string; lastStep: number | null },
  code: unknown,
  use: (step: number) => Promise<boolean>,
): Promise<boolean> {
  const step = await totpStep(encryption.decrypt(sealed.secret, sealed.context), code, sealed.lastStep);
  return step !== null && (await use(step));
}
