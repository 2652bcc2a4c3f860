import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { updateReturning } from '#database';

/** A reset link still usable (not used, not expired), with whose password it resets. */
export interface PendingPasswordReset {
  id: string;
  userId: string;
  vendorId: string;
  email: string;
  expiresAt: Date;
}

/** dashboard_password_resets: single-use links, keyed by the secret's SHA-256. */
@Injectable()
export class DashboardPasswordResetRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, reset: { userId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
    await manager.query(`INSERT INTO dashboard_password_resets (user_id, token_hash, expires_at) VALUES ($1, $2, $3)`, [reset.userId, reset.tokenHash, reset.expiresAt]);
  }

  /** A new link replaces the user's earlier ones: only the latest mail works. */
  async retireOpen(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(`UPDATE dashboard_password_resets SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, [userId]);
  }

  async pending(tokenHash: string): Promise<PendingPasswordReset | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT r.id, r.user_id AS "userId", u.vendor_id AS "vendorId", u.email, r.expires_at AS "expiresAt"
         FROM dashboard_password_resets r JOIN dashboard_users u ON u.id = r.user_id AND u.removed_at IS NULL
        WHERE r.token_hash = $1 AND r.used_at IS NULL AND r.expires_at > now()`,
      [tokenHash],
    )) as PendingPasswordReset[];
    return row;
  }

  /** Marks the link used if it still is usable: the guard against a second use. */
  async use(manager: EntityManager, resetId: string): Promise<boolean> {
    const used = await updateReturning<{ id: string }>(manager, `UPDATE dashboard_password_resets SET used_at = now() WHERE id = $1 AND used_at IS NULL AND expires_at > now() RETURNING id`, [resetId]);
    return used.length > 0;
  }
}
