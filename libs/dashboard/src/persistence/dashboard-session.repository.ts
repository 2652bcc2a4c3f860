import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { DashboardSession } from '../sessions.service.js';

/** A live session with its user and vendor, as resolving a cookie reads it, and when it was last seen. */
export type LiveDashboardSession = DashboardSession & { lastSeenAt: Date };

/** dashboard_sessions: a row per sign-in, keyed by the cookie secret's SHA-256. */
@Injectable()
export class DashboardSessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(session: { tokenHash: string; userId: string; vendorId: string; csrfToken: string; expiresAt: Date }): Promise<void> {
    await this.dataSource.query(`INSERT INTO dashboard_sessions (token_hash, user_id, vendor_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4, $5)`, [
      session.tokenHash,
      session.userId,
      session.vendorId,
      session.csrfToken,
      session.expiresAt,
    ]);
  }

  /** The session with this hash unless revoked, expired, idle longer than idleSeconds, or its user removed. */
  async findLive(tokenHash: string, idleSeconds: number): Promise<LiveDashboardSession | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT s.id, s.user_id AS "userId", s.vendor_id AS "vendorId", v.name AS "vendorName", u.email, u.role,
              s.csrf_token AS "csrfToken", s.last_seen_at AS "lastSeenAt",
              (u.totp_secret_ciphertext IS NULL AND EXISTS (SELECT 1 FROM dashboard_team_settings t WHERE t.vendor_id = s.vendor_id AND t.require_two_step)) AS "mustEnrolTwoStep"
         FROM dashboard_sessions s
         JOIN dashboard_users u ON u.id = s.user_id AND u.removed_at IS NULL
         JOIN vendors v ON v.id = s.vendor_id
        WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
          AND s.last_seen_at > now() - make_interval(secs => $2)`,
      [tokenHash, idleSeconds],
    )) as LiveDashboardSession[];
    return row;
  }

  async touch(sessionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE dashboard_sessions SET last_seen_at = now() WHERE id = $1`, [sessionId]);
  }

  async revoke(sessionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE dashboard_sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`, [sessionId]);
  }

  /** Revokes every live session of the user but `exceptId` (the one making a change): how many there were. */
  async revokeAllOf(userId: string, manager: EntityManager = this.dataSource.manager, exceptId: string | null = null): Promise<number> {
    const [, count] = (await manager.query(`UPDATE dashboard_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $2`, [userId, exceptId])) as [unknown, number];
    return Number(count);
  }
}
