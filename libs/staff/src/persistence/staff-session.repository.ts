import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { updateReturning } from '#database';
import type { StaffSession } from '../model/staff.js';

export type LiveStaffSession = StaffSession & { lastSeenAt: Date };

/** staff_sessions: the cookie's secret is stored as its SHA-256 only. */
@Injectable()
export class StaffSessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert({ tokenHash, staffUserId, csrfToken, expiresAt }: { tokenHash: string; staffUserId: string; csrfToken: string; expiresAt: Date }): Promise<void> {
    await this.dataSource.query(`INSERT INTO staff_sessions (token_hash, staff_user_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)`, [tokenHash, staffUserId, csrfToken, expiresAt]);
  }

  /** A live session of an active user (both factors set, not disabled), not idle longer than `idleSeconds`. */
  async findLive(tokenHash: string, idleSeconds: number): Promise<LiveStaffSession | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT s.id, s.staff_user_id AS "staffUserId", u.email, u.role, s.csrf_token AS "csrfToken", s.last_seen_at AS "lastSeenAt"
         FROM staff_sessions s
         JOIN staff_users u ON u.id = s.staff_user_id AND u.disabled_at IS NULL AND u.totp_secret_ciphertext IS NOT NULL
        WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
          AND s.last_seen_at > now() - make_interval(secs => $2)`,
      [tokenHash, idleSeconds],
    )) as LiveStaffSession[];
    return row;
  }

  async touch(id: string): Promise<void> {
    await this.dataSource.query(`UPDATE staff_sessions SET last_seen_at = now() WHERE id = $1`, [id]);
  }

  async revoke(id: string): Promise<void> {
    await this.dataSource.query(`UPDATE staff_sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`, [id]);
  }

  /** Ends every session of a user (sign-out everywhere, disabled, second factor reset); returns how many. */
  async revokeAllOf(staffUserId: string, manager: Pick<EntityManager, 'query'> = this.dataSource.manager): Promise<number> {
    const rows = await updateReturning(manager, `UPDATE staff_sessions SET revoked_at = now() WHERE staff_user_id = $1 AND revoked_at IS NULL RETURNING id`, [staffUserId]);
    return rows.length;
  }
}
