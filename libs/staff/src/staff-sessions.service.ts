import { Injectable } from '@nestjs/common';
import { randomSecret, SECRET_PATTERN, secretHash } from '#web';
import type { StaffSession } from './model/staff.js';
import { StaffSessionRepository } from './persistence/staff-session.repository.js';

/** Staff sessions are shorter than vendors': idle 15 minutes... */
export const STAFF_SESSION_IDLE_MS = 15 * 60_000;
/** ...and 8 hours at most, one working day. */
export const STAFF_SESSION_ABSOLUTE_MS = 8 * 3_600_000;
/** last_seen_at is written at most this often, so browsing does not write on every page. */
const TOUCH_EVERY_MS = 60_000;

/**
 * Server-side staff sessions in PostgreSQL, like the vendor dashboard's: the cookie carries a
 * random secret, the table its SHA-256 and the CSRF synchroniser token; revoking a row ends the
 * session at once (sign-out, account disabled, second factor reset).
 */
@Injectable()
export class StaffSessions {
  constructor(private readonly sessions: StaffSessionRepository) {}

  /** A new session with a new secret and CSRF token: signing in always rotates both. */
  async start(staffUserId: string): Promise<{ secret: string; expiresAt: Date }> {
    const secret = randomSecret();
    const expiresAt = new Date(Date.now() + STAFF_SESSION_ABSOLUTE_MS);
    await this.sessions.insert(secretHash(secret), staffUserId, randomSecret(), expiresAt);
    return { secret, expiresAt };
  }

  async resolve(secret: string | undefined): Promise<StaffSession | null> {
    if (!secret || !SECRET_PATTERN.test(secret)) return null;
    const session = await this.sessions.findLive(secretHash(secret), STAFF_SESSION_IDLE_MS / 1000);
    if (!session) return null;
    if (Date.now() - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) await this.sessions.touch(session.id);
    return { id: session.id, staffUserId: session.staffUserId, email: session.email, role: session.role, csrfToken: session.csrfToken };
  }

  end(sessionId: string): Promise<void> {
    return this.sessions.revoke(sessionId);
  }
}
