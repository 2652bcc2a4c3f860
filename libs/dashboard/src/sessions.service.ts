import { Injectable } from '@nestjs/common';
import { DashboardSessionRepository } from './persistence/dashboard-session.repository.js';
import type { DashboardRole } from './roles.js';
import { randomSecret, SECRET_PATTERN, secretHash } from '#web';

/** A session ends after this long without a request... */
export const SESSION_IDLE_MS = 30 * 60_000;
/** ...and in any case this long after sign-in. */
export const SESSION_ABSOLUTE_MS = 12 * 3_600_000;
/** last_seen_at is written at most this often, so browsing does not write on every page. */
const TOUCH_EVERY_MS = 60_000;

export interface DashboardSession {
  id: string;
  userId: string;
  vendorId: string;
  vendorName: string;
  email: string;
  role: DashboardRole;
  csrfToken: string;
}

/**
 * Server-side sessions in PostgreSQL. The cookie carries a random secret; the table keeps its
 * SHA-256, the user, the vendor and the CSRF synchroniser token. Revoking a row ends the session
 * at once (sign-out, sign-out everywhere, user removed).
 */
@Injectable()
export class DashboardSessions {
  constructor(private readonly sessions: DashboardSessionRepository) {}

  /** A new session with a new secret and CSRF token: signing in always rotates both. */
  async start(userId: string, vendorId: string): Promise<{ secret: string; expiresAt: Date }> {
    const secret = randomSecret();
    const expiresAt = new Date(Date.now() + SESSION_ABSOLUTE_MS);
    await this.sessions.insert({ tokenHash: secretHash(secret), userId, vendorId, csrfToken: randomSecret(), expiresAt });
    return { secret, expiresAt };
  }

  /** The live session behind a cookie value, or null (unknown, revoked, idle too long, past its absolute expiry, user removed). */
  async resolve(secret: string | undefined): Promise<DashboardSession | null> {
    if (!secret || !SECRET_PATTERN.test(secret)) return null;
    const live = await this.sessions.live(secretHash(secret), SESSION_IDLE_MS / 1000);
    if (!live) return null;
    const { lastSeenAt, ...session } = live;
    if (Date.now() - lastSeenAt.getTime() > TOUCH_EVERY_MS) await this.sessions.touch(session.id);
    return session;
  }

  async end(sessionId: string): Promise<void> {
    await this.sessions.revoke(sessionId);
  }

  /** Sign-out everywhere: every session of the user, this one included. */
  async endAllForUser(userId: string): Promise<number> {
    return this.sessions.revokeAllOf(userId);
  }
}
