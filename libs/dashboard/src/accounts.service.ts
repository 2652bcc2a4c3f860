import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '#common';
import { DashboardAuditLog } from './audit.service.js';
import { DUMMY_PASSWORD_HASH, hashPassword, passwordProblems, verifyPassword } from './passwords.js';
import { isDashboardRole, type DashboardRole } from './roles.js';
import { EMAIL_PATTERN, normaliseEmail, randomSecret, SECRET_PATTERN, secretHash } from './secrets.js';

export const INVITE_LIFETIME_MS = 72 * 3_600_000;

export interface DashboardUser {
  id: string;
  vendor_id: string;
  email: string;
  role: DashboardRole;
  totp_enabled: boolean;
  created_at: Date;
}

export interface PendingInvite {
  id: string;
  vendor_id: string;
  vendor_name: string;
  email: string;
  role: DashboardRole;
  expires_at: Date;
}

export interface Actor {
  userId: string | null;
  label: string;
  address?: string | null;
}

const USER_COLUMNS = `u.id, u.vendor_id, u.email, u.role, (u.totp_secret_ciphertext IS NOT NULL) AS totp_enabled, u.created_at`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Dashboard users and their invites; every read and change is scoped to one vendor. */
@Injectable()
export class DashboardAccounts {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: DashboardAuditLog,
  ) {}

  /** Creates a one-time invite; the secret goes into the link only, the database keeps its hash. */
  async invite(vendorId: string, email: string, role: string, actor: Actor): Promise<{ secret: string; expiresAt: Date }> {
    const normalised = normaliseEmail(email);
    const errors: Record<string, string[]> = {};
    if (!EMAIL_PATTERN.test(normalised)) errors.email = ['Enter a valid email address.'];
    if (!isDashboardRole(role)) errors.role = ['Choose owner, developer, finance or viewer.'];
    if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
    if (!UUID.test(vendorId)) throw new NotFoundError('vendor');
    const secret = randomSecret();
    const expiresAt = new Date(Date.now() + INVITE_LIFETIME_MS);
    await this.dataSource.transaction(async (manager) => {
      const [vendor] = await manager.query(`SELECT id FROM vendors WHERE id = $1`, [vendorId]);
      if (!vendor) throw new NotFoundError('vendor');
      const [existing] = await manager.query(`SELECT 1 FROM dashboard_users WHERE email = $1 AND removed_at IS NULL`, [normalised]);
      if (existing) throw new ValidationFailedError({ email: ['This email already has a dashboard account.'] });
      await manager.query(
        `INSERT INTO dashboard_invites (vendor_id, email, role, token_hash, invited_by_user_id, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [vendorId, normalised, role, secretHash(secret), actor.userId, expiresAt],
      );
      await this.audit.record({ vendorId, actorUserId: actor.userId, actor: actor.label, action: 'user.invited', subject: normalised, details: { role }, address: actor.address }, manager);
    });
    return { secret, expiresAt };
  }

  /** The invite behind a link, if it is still usable (not accepted, revoked or expired). */
  async pendingInvite(secret: string): Promise<PendingInvite | null> {
    if (!SECRET_PATTERN.test(secret)) return null;
    const [row] = await this.dataSource.query(
      `SELECT i.id, i.vendor_id, v.name AS vendor_name, i.email, i.role, i.expires_at
         FROM dashboard_invites i JOIN vendors v ON v.id = i.vendor_id
        WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()`,
      [secretHash(secret)],
    );
    return (row as PendingInvite | undefined) ?? null;
  }

  /** Uses the invite once (the conditional UPDATE is the guard against a second use) and creates the user. */
  async acceptInvite(secret: string, password: string, address: string | null): Promise<DashboardUser> {
    const invite = await this.pendingInvite(secret);
    if (!invite) throw new NotFoundError('invite');
    const problems = passwordProblems(password, invite.email);
    if (problems.length > 0) throw new ValidationFailedError({ password: problems });
    const passwordHash = await hashPassword(password);
    return this.dataSource.transaction(async (manager) => {
      const used = await manager.query(
        `UPDATE dashboard_invites SET accepted_at = now() WHERE id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now() RETURNING id`,
        [invite.id],
      );
      if (used[0].length === 0) throw new NotFoundError('invite');
      const [existing] = await manager.query(`SELECT 1 FROM dashboard_users WHERE email = $1 AND removed_at IS NULL`, [invite.email]);
      if (existing) throw new ValidationFailedError({ email: ['This email already has a dashboard account.'] });
      const [user] = await manager.query(
        `INSERT INTO dashboard_users (vendor_id, email, role, password_hash) VALUES ($1, $2, $3, $4)
         RETURNING id, vendor_id, email, role, false AS totp_enabled, created_at`,
        [invite.vendor_id, invite.email, invite.role, passwordHash],
      );
      await this.audit.record({ vendorId: invite.vendor_id, actorUserId: user.id, actor: invite.email, action: 'user.joined', subject: invite.email, details: { role: invite.role }, address }, manager);
      return user as DashboardUser;
    });
  }

  /**
   * Checks an email and password. Unknown emails still cost one argon2 verification, so the
   * answer time does not tell which emails have accounts.
   */
  async checkCredentials(email: string, password: string): Promise<(DashboardUser & { totp_secret_ciphertext: string | null; totp_last_step: string | null }) | null> {
    const [row] = await this.dataSource.query(
      `SELECT ${USER_COLUMNS}, u.password_hash, u.totp_secret_ciphertext, u.totp_last_step::text FROM dashboard_users u WHERE u.email = $1 AND u.removed_at IS NULL`,
      [normaliseEmail(email)],
    );
    const ok = await verifyPassword(row?.password_hash ?? DUMMY_PASSWORD_HASH, password);
    if (!row || !ok) return null;
    delete row.password_hash;
    return row;
  }

  async get(vendorId: string, userId: string): Promise<DashboardUser> {
    if (!UUID.test(userId)) throw new NotFoundError('user');
    const [row] = await this.dataSource.query(`SELECT ${USER_COLUMNS} FROM dashboard_users u WHERE u.vendor_id = $1 AND u.id = $2 AND u.removed_at IS NULL`, [vendorId, userId]);
    if (!row) throw new NotFoundError('user');
    return row as DashboardUser;
  }

  list(vendorId: string): Promise<DashboardUser[]> {
    return this.dataSource.query(`SELECT ${USER_COLUMNS} FROM dashboard_users u WHERE u.vendor_id = $1 AND u.removed_at IS NULL ORDER BY u.created_at, u.id`, [vendorId]);
  }

  listInvites(vendorId: string): Promise<PendingInvite[]> {
    return this.dataSource.query(
      `SELECT i.id, i.vendor_id, '' AS vendor_name, i.email, i.role, i.expires_at FROM dashboard_invites i
        WHERE i.vendor_id = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now() ORDER BY i.created_at DESC`,
      [vendorId],
    );
  }

  /** Withdraws a pending invite of the vendor: its link stops working at once. */
  async withdrawInvite(vendorId: string, inviteId: string, actor: Actor): Promise<void> {
    if (!UUID.test(inviteId)) throw new NotFoundError('invite');
    await this.dataSource.transaction(async (manager) => {
      const [rows] = await manager.query(
        `UPDATE dashboard_invites SET revoked_at = now() WHERE vendor_id = $1 AND id = $2 AND accepted_at IS NULL AND revoked_at IS NULL RETURNING email, role`,
        [vendorId, inviteId],
      );
      if (rows.length === 0) throw new NotFoundError('invite');
      await this.audit.record({ vendorId, actorUserId: actor.userId, actor: actor.label, action: 'user.invite_withdrawn', subject: rows[0].email, details: { role: rows[0].role }, address: actor.address }, manager);
    });
  }

  /**
   * The user's sealed TOTP secret (FieldEncryption, sealed by the caller) with the step of the
   * code that proved it, or null to turn two-step sign-in off.
   */
  async setTotpSecret(vendorId: string, userId: string, sealedSecret: string | null, step: number | null, actor: Actor): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const [, count] = await manager.query(
        `UPDATE dashboard_users SET totp_secret_ciphertext = $3, totp_last_step = $4, updated_at = now() WHERE vendor_id = $1 AND id = $2 AND removed_at IS NULL`,
        [vendorId, userId, sealedSecret, step],
      );
      if (Number(count) === 0) throw new NotFoundError('user');
      await this.audit.record({ vendorId, actorUserId: actor.userId, actor: actor.label, action: sealedSecret ? 'user.totp_enabled' : 'user.totp_disabled', subject: actor.label, address: actor.address }, manager);
    });
  }

  /** The sealed TOTP secret of a user and the last step accepted, if two-step sign-in is on. */
  async totpSecret(vendorId: string, userId: string): Promise<{ sealed: string; lastStep: number | null } | null> {
    const [row] = await this.dataSource.query(
      `SELECT totp_secret_ciphertext, totp_last_step::text FROM dashboard_users WHERE vendor_id = $1 AND id = $2 AND removed_at IS NULL AND totp_secret_ciphertext IS NOT NULL`,
      [vendorId, userId],
    );
    return row ? { sealed: row.totp_secret_ciphertext, lastStep: row.totp_last_step === null ? null : Number(row.totp_last_step) } : null;
  }

  /**
   * Records an accepted TOTP step; false when that step (or a later one) was already used, so
   * two requests racing with the same code cannot both pass.
   */
  async useTotpStep(userId: string, step: number): Promise<boolean> {
    const [, count] = await this.dataSource.query(
      `UPDATE dashboard_users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2)`,
      [userId, step],
    );
    return Number(count) === 1;
  }

  /** Changes a role; the last owner cannot be demoted, or nobody could manage the team. */
  async changeRole(vendorId: string, userId: string, role: string, actor: Actor): Promise<void> {
    if (!isDashboardRole(role)) throw new ValidationFailedError({ role: ['Choose owner, developer, finance or viewer.'] });
    await this.dataSource.transaction(async (manager) => {
      const target = await this.lockedUser(manager, vendorId, userId);
      if (target.role === 'owner' && role !== 'owner') await this.assertAnotherOwner(manager, vendorId, userId);
      await manager.query(`UPDATE dashboard_users SET role = $3, updated_at = now() WHERE vendor_id = $1 AND id = $2`, [vendorId, userId, role]);
      await this.audit.record({ vendorId, actorUserId: actor.userId, actor: actor.label, action: 'user.role_changed', subject: target.email, details: { from: target.role, to: role }, address: actor.address }, manager);
    });
  }

  /** Removes a user and ends their sessions. The vendor's API tokens stay valid: they belong to the vendor. */
  async remove(vendorId: string, userId: string, actor: Actor): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const target = await this.lockedUser(manager, vendorId, userId);
      if (target.role === 'owner') await this.assertAnotherOwner(manager, vendorId, userId);
      await manager.query(`UPDATE dashboard_users SET removed_at = now(), updated_at = now() WHERE vendor_id = $1 AND id = $2`, [vendorId, userId]);
      await manager.query(`UPDATE dashboard_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, [userId]);
      await this.audit.record({ vendorId, actorUserId: actor.userId, actor: actor.label, action: 'user.removed', subject: target.email, details: { role: target.role }, address: actor.address }, manager);
    });
  }

  private async lockedUser(manager: import('typeorm').EntityManager, vendorId: string, userId: string): Promise<DashboardUser> {
    if (!UUID.test(userId)) throw new NotFoundError('user');
    // Lock every owner row of the vendor too, so two concurrent demotions cannot remove the last two owners.
    await manager.query(`SELECT id FROM dashboard_users WHERE vendor_id = $1 AND role = 'owner' AND removed_at IS NULL FOR UPDATE`, [vendorId]);
    const [row] = await manager.query(`SELECT ${USER_COLUMNS} FROM dashboard_users u WHERE u.vendor_id = $1 AND u.id = $2 AND u.removed_at IS NULL FOR UPDATE`, [vendorId, userId]);
    if (!row) throw new NotFoundError('user');
    return row as DashboardUser;
  }

  private async assertAnotherOwner(manager: import('typeorm').EntityManager, vendorId: string, userId: string): Promise<void> {
    const [{ owners }] = await manager.query(`SELECT count(*)::int AS owners FROM dashboard_users WHERE vendor_id = $1 AND role = 'owner' AND removed_at IS NULL AND id <> $2`, [vendorId, userId]);
    if (owners === 0) throw new ValidationFailedError({ role: ['The vendor must keep at least one owner.'] });
  }
}
