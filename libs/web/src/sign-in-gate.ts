import type { Request } from 'express';
import { signInRefusal } from './forms.js';
import { clientAddress, preSessionMatches, safeNext } from './requests.js';
import type { SignInLimiter } from './sign-in-limiter.js';

/** The sign-in form's fields as posted (any of them may be missing or not a string). */
export interface SignInForm {
  email?: unknown;
  password?: unknown;
  totp?: unknown;
  _pre?: unknown;
}

export interface SignInAttempt {
  email: string;
  password: string;
  totp: unknown;
  /** Where to go after signing in (same-site only). */
  target: string;
  address: string;
}

export type SignInGate =
  | { open: true; attempt: SignInAttempt }
  | { open: false; status: number; message: string; email: string; target: string; retryAfterSeconds: number | null };

/**
 * What both signed-in apps check before any credential is read: the pre-session double submit
 * (login CSRF), then the sign-in limiter (which fails closed).
 */
export async function openSignIn(request: Request, form: SignInForm, next: unknown, preSessionCookie: string, limiter: SignInLimiter): Promise<SignInGate> {
  const email = typeof form.email === 'string' ? form.email.slice(0, 320) : '';
  const password = typeof form.password === 'string' ? form.password : '';
  const target = safeNext(next);
  if (!preSessionMatches(request, preSessionCookie, form._pre)) return { open: false, status: 403, message: 'The sign-in form expired. Try again.', email, target, retryAfterSeconds: null };
  const address = clientAddress(request);
  const admission = await limiter.admit(email, address);
  if (!admission.allowed) return { open: false, ...signInRefusal(admission), email, target, retryAfterSeconds: admission.retryAfterSeconds };
  return { open: true, attempt: { email, password, totp: form.totp, target, address } };
}
