import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes, URL-safe: session cookies, invite links and CSRF tokens. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Only this hash of a session or invite secret is stored, so a database read cannot impersonate anyone. */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * What a link's secret (an invite, a password reset, a setup link) stands for, looked up by its
 * hash; null without a lookup for anything not shaped like one of our secrets.
 */
export async function findBySecret<Found>(secret: unknown, find: (hash: string) => Promise<Found | null | undefined>): Promise<Found | null> {
  if (typeof secret !== 'string' || !SECRET_PATTERN.test(secret)) return null;
  return (await find(secretHash(secret))) ?? null;
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,}$/;
