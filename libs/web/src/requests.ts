import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { SECRET_PATTERN } from './secrets.js';

/** Reads one cookie without a parser dependency; values are our own base64url secrets. */
export function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

export function clientAddress(request: Request): string {
  // request.ip follows TRUSTED_PROXY_HOPS (configureHttpApp): behind the ingress (1 hop) the
  // address the ingress saw; reached directly (0) the socket's, whatever X-Forwarded-For says.
  return request.ip ?? request.socket.remoteAddress ?? 'unknown';
}

/** Constant-time comparison of a CSRF (or pre-session) token with what the request offered. */
export function csrfMatches(expected: string, offered: unknown): boolean {
  if (typeof offered !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(offered);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The double-submit check of a sign-in form: the pre-session cookie and the form field agree. */
export function preSessionMatches(request: Request, cookieName: string, offered: unknown): boolean {
  const cookie = readCookie(request, cookieName);
  return typeof cookie === 'string' && SECRET_PATTERN.test(cookie) && csrfMatches(cookie, offered);
}

/** Only same-site relative paths: `next` must not turn sign-in into an open redirect. */
export function safeNext(next: unknown, fallback = '/'): string {
  return typeof next === 'string' && /^\/(?![/\\])[\w\-./?=&%]*$/.test(next) && !next.startsWith('/sign-in') ? next : fallback;
}

export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/** The token a state-changing request offers: the `_csrf` form field or the `X-CSRF-Token` header. */
export function offeredCsrf(request: Request): unknown {
  return (request.body as Record<string, unknown> | undefined)?._csrf ?? request.headers['x-csrf-token'];
}
