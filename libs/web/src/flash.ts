import type { Request, Response } from 'express';
import type { FieldEncryption } from '#common';
import type { SessionCookies } from './cookies.js';
import { readCookie } from './requests.js';

/** How long a notice waits for the page the browser is redirected to. */
export const FLASH_TTL_MS = 120_000;

/**
 * Post/redirect/get for a form whose answer must be shown once (a new token's secret, an invite
 * link): the POST seals the notice into a short-lived cookie (AES-GCM under the session's id, so
 * no other session can open it) and redirects; the GET opens it and clears the cookie. Reloading
 * the page then neither repeats the POST nor shows the secret again.
 */
export function setFlash(response: Response, cookies: SessionCookies, encryption: FieldEncryption, sessionId: string, notice: Record<string, unknown>, now = Date.now()): void {
  const sealed = encryption.encryptJson({ notice, issuedAt: now }, `flash:${sessionId}`);
  response.cookie(cookies.flash, sealed, { httpOnly: true, secure: cookies.secure, sameSite: 'strict', path: '/', maxAge: FLASH_TTL_MS });
}

/** The notice the last redirect left for this session (and the cookie cleared), or null. */
export function takeFlash<T extends Record<string, unknown>>(request: Request, response: Response, cookies: SessionCookies, encryption: FieldEncryption, sessionId: string, now = Date.now()): T | null {
  const sealed = readCookie(request, cookies.flash);
  if (sealed === undefined) return null;
  response.clearCookie(cookies.flash, { httpOnly: true, secure: cookies.secure, sameSite: 'strict', path: '/' });
  try {
    const { notice, issuedAt } = encryption.decryptJson<{ notice: T; issuedAt: number }>(decodeURIComponent(sealed), `flash:${sessionId}`);
    return now - issuedAt >= 0 && now - issuedAt <= FLASH_TTL_MS ? notice : null;
  } catch {
    return null;
  }
}
