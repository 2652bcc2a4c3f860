import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { updateReturning } from '#database';
import type { DashboardRole } from '../roles.js';

/** An invite still usable (not accepted, revoked or expired). */
export interface PendingInvite {
  id: string;
  vendorId: string;
  vendorName: string;
  email: string;
  role: DashboardRole;
  expiresAt: Date;
}

/** dashboard_invites: one-time links, keyed by the secret's SHA-256. */
@Injectable()
export class DashboardInviteRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, invite: { vendorId: string; email: string; role: DashboardRole; tokenHash: string; invitedByUserId: string | null; expiresAt: Date }): Promise<void> {
    await manager.query(`INSERT INTO dashboard_invites (vendor_id, email, role, token_hash, invited_by_user_id, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
      invite.vendorId,
      invite.email,
      invite.role,
      invite.tokenHash,
      invite.invitedByUserId,
      invite.expiresAt,
    ]);
  }

  async pending(tokenHash: string): Promise<PendingInvite | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT i.id, i.vendor_id AS "vendorId", v.name AS "vendorName", i.email, i.role, i.expires_at AS "expiresAt"
         FROM dashboard_invites i JOIN vendors v ON v.id = i.vendor_id
        WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()`,
      [tokenHash],
    )) as PendingInvite[];
    return row;
  }

  /** Marks the invite accepted if it still is usable: the guard against a second use. */
  async accept(manager: EntityManager, inviteId: string): Promise<boolean> {
    const used = await updateReturning<{ id: string }>(
      manager,
      `UPDATE dashboard_invites SET accepted_at = now() WHERE id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now() RETURNING id`,
      [inviteId],
    );
    return used.length > 0;
  }

  /** The vendor's pending invites, newest first (vendorName left empty: the caller knows it). */
  listPending(vendorId: string): Promise<PendingInvite[]> {
    return this.dataSource.query(
      `SELECT i.id, i.vendor_id AS "vendorId", '' AS "vendorName", i.email, i.role, i.expires_at AS "expiresAt" FROM dashboard_invites i
        WHERE i.vendor_id = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now() ORDER BY i.created_at DESC`,
      [vendorId],
    );
  }

  /** Revokes a pending invite of the vendor: its email and role, or undefined when there was none. */
  async withdraw(manager: EntityManager, vendorId: string, inviteId: string): Promise<{ email: string; role: DashboardRole } | undefined> {
    const [row] = await updateReturning<{ email: string; role: DashboardRole }>(
      manager,
      `UPDATE dashboard_invites SET revoked_at = now() WHERE vendor_id = $1 AND id = $2 AND accepted_at IS NULL AND revoked_at IS NULL RETURNING email, role`,
      [vendorId, inviteId],
    );
    return row;
  }
}
