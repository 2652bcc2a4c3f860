import type { InjectionToken, Provider } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { GatewayEnv } from '#config';
import { SessionCookies } from './cookies.js';
import { clientAddress, preSessionMatches, readCookie, safeNext } from './requests.js';
import { SignInLimiter } from './sign-in-limiter.js';

/**
 * An app's SessionCookies and SignInLimiter, both named after it (the vendor dashboard: `dash`, the
 * back-office: `staff`), so neither app's cookies mean anything to the other and their sign-ins
 * are counted apart. `redis` is the RedisModule's client token.
 */
export function signInProviders(name: string, redis: InjectionToken): Provider[] {
  return [
    { provide: SessionCookies, inject: [GatewayEnv], useFactory: (env: GatewayEnv) => new SessionCookies(env, name) },
    {
      provide: SignInLimiter,
      inject: [redis, GatewayEnv],
      useFactory: (client: Redis, env: GatewayEnv) => new SignInLimiter(client, `${env.QUEUE_PREFIX}:${name}:signin`),
    },
  ];
}

/** The sign-in form's fields as posted (any of them may be missing or not a string). */
export interface SignInForm {
  email?: unknown;
  password?: unknown;
  totp?: unknown;
  _pre?: unknown;
}

/** What differs between the two signed-in apps' sign-in; the steps and their order are signIn's. */
export interface SignInFlow<User> {
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
  showForm(response: Response, status: number, state: { next: string; email?: string; errors?: Record<string, string[]> }): void;
}

/**
 * POST /sign-in of the vendor dashboard and the back-office: the gate (login CSRF, limiter), the
 * factors, then rotation (a session the browser held ends; the new one has fresh secrets) and
 * the redirect to the same-site target.
 */
export async function signIn<User>(request: Request, response: Response, form: SignInForm, next: unknown, flow: SignInFlow<User>): Promise<void> {
  const email = typeof form.email === 'string' ? form.email.slice(0, 320) : '';
  const password = typeof form.password === 'string' ? form.password : '';
  const target = safeNext(next);
  const refuse = (status: number, message: string) => flow.showForm(response, status, { next: target, email, errors: { _: [message] } });
  // Before any credential is read: the pre-session double submit (login CSRF), then the sign-in limiter (which fails closed).
  if (!preSessionMatches(request, flow.cookies.preSession, form._pre)) return refuse(403, 'The sign-in form expired. Try again.');
  const address = clientAddress(request);
  const admission = await flow.limiter.admit(email, address);
  if (!admission.allowed) {
    response.setHeader('Retry-After', String(admission.retryAfterSeconds));
    // 429 while limited, 503 while the limiter cannot count.
    const minutes = Math.ceil(admission.retryAfterSeconds / 60);
    if (admission.reason === 'limited') return refuse(429, `Too many sign-in attempts. Wait ${minutes} minutes and try again.`);
    return refuse(503, 'Sign-in is temporarily unavailable. Try again in a minute.');
  }
  const verdict = await flow.verify({ email, password, totp: form.totp });
  if ('refused' in verdict) return refuse(401, verdict.refused);
  await flow.limiter.succeeded(email);
  const previous = await flow.sessions.resolve(readCookie(request, flow.cookies.session));
  if (previous) await flow.sessions.end(previous.id);
  const { secret, expiresAt } = await flow.start(verdict.user);
  await flow.audit(verdict.user, address);
  flow.cookies.setSession(response, secret, expiresAt);
  response.redirect(303, target);
}
