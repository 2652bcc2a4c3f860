import { randomSecret, SECRET_PATTERN, secretHash } from './secrets.js';

/** last_seen_at is written at most this often, so browsing does not write on every page. */
const TOUCH_EVERY_MS = 60_000;

/** A signed-in app's session table, through its repository (which holds the SQL). */
export interface SessionStore<Owner, Live extends { id: string; lastSeenAt: Date }> {
  insert(session: Owner & { tokenHash: string; csrfToken: string; expiresAt: Date }): Promise<void>;
  /** The session with this hash unless revoked, expired, idle longer than idleSeconds, or its user no longer allowed in. */
  findLive(tokenHash: string, idleSeconds: number): Promise<Live | undefined>;
  touch(sessionId: string): Promise<void>;
  revoke(sessionId: string): Promise<void>;
}

/**
 * Server-side sessions of both signed-in apps, in PostgreSQL. The cookie carries a random
 * secret; the table keeps its SHA-256, the user and the CSRF synchroniser token. Revoking a row
 * ends the session at once (sign-out, user removed or disabled, second factor reset).
 */
export class ServerSessions<Owner, Live extends { id: string; lastSeenAt: Date }> {
  constructor(
    private readonly store: SessionStore<Owner, Live>,
    /** Idle: how long without a request; absolute: how long after sign-in in any case. */
    private readonly lifetime: { idleMs: number; absoluteMs: number },
  ) {}

  /** A new session with a new secret and CSRF token: signing in always rotates both. */
  async start(owner: Owner): Promise<{ secret: string; expiresAt: Date }> {
    const secret = randomSecret();
    const expiresAt = new Date(Date.now() + this.lifetime.absoluteMs);
    await this.store.insert({ ...owner, tokenHash: secretHash(secret), csrfToken: randomSecret(), expiresAt });
    return { secret, expiresAt };
  }

  /** The live session behind a cookie value, or null (unknown, revoked, idle too long, past its absolute expiry, user gone). */
  async resolve(secret: string | undefined): Promise<Omit<Live, 'lastSeenAt'> | null> {
    if (!secret || !SECRET_PATTERN.test(secret)) return null;
    const live = await this.store.findLive(secretHash(secret), this.lifetime.idleMs / 1000);
    if (!live) return null;
    const { lastSeenAt, ...session } = live;
    if (Date.now() - lastSeenAt.getTime() > TOUCH_EVERY_MS) await this.store.touch(session.id);
    return session;
  }

  async end(sessionId: string): Promise<void> {
    await this.store.revoke(sessionId);
  }
}
