import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { readShape, type Queryable, type ReadColumns } from '#database';
import type { DashboardRole } from '../roles.js';

/** A dashboard user as the dashboard shows it (never the password hash or the TOTP secret). */
export interface DashboardUser {
  id: string;
  vendorId: string;
  email: string;
  role: DashboardRole;
  totpEnabled: boolean;
  createdAt: Date;
}

/** What signing in needs besides the user: the sealed TOTP secret and the last step it accepted. */
export interface DashboardUserCredentials extends DashboardUser {
  passwordHash: string;
  totpSecretCiphertext: string | null;
  totpLastStep: string | null;
}

const USER_FIELDS: ReadColumns<DashboardUser> = {
  id: 'u.id', vendorId: 'u.vendor_id', email: 'u.email', role: 'u.role', totpEnabled: '(u.totp_secret_ciphertext IS NOT NULL)', createdAt: 'u.created_at',
};
const USER = readShape<DashboardUser>(USER_FIELDS);
const CREDENTIALS = readShape<DashboardUserCredentials>({
  ...USER_FIELDS, passwordHash: 'u.password_hash', totpSecretCiphertext: 'u.totp_secret_ciphertext', totpLastStep: 'u.totp_last_step::text',
});

/** dashboard_users: every vendor-facing read and change carries the vendor id. */
@Injectable()
export class DashboardUserRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** An email has at most one live account, across vendors. */
  async emailTaken(manager: EntityManager, email: string): Promise<boolean> {
    const [existing] = (await manager.query(`SELECT 1 FROM dashboard_users WHERE email = $1 AND removed_at IS NULL`, [email])) as unknown[];
    return existing !== undefined;
  }

  async insert(manager: EntityManager, user: { vendorId: string; email: string; role: DashboardRole; passwordHash: string }): Promise<DashboardUser> {
    const [created] = (await manager.query(
      `INSERT INTO dashboard_users AS u (vendor_id, email, role, password_hash) VALUES ($1, $2, $3, $4) RETURNING ${USER.columns}`,
      [user.vendorId, user.email, user.role, user.passwordHash],
    )) as DashboardUser[];
    return created;
  }

  async credentials(email: string): Promise<DashboardUserCredentials | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT ${CREDENTIALS.columns} FROM dashboard_users u WHERE u.email = $1 AND u.removed_at IS NULL`,
      [email],
    )) as DashboardUserCredentials[];
    return row;
  }

  /** Whether the vendor's owners require two-step sign-in of everyone on the team. */
  async teamRequiresTwoStep(vendorId: string, manager: Queryable = this.dataSource.manager): Promise<boolean> {
    const [row] = (await manager.query(`SELECT require_two_step FROM dashboard_team_settings WHERE vendor_id = $1`, [vendorId])) as { require_two_step: boolean }[];
    return row?.require_two_step ?? false;
  }

  async setTeamRequiresTwoStep(manager: EntityManager, vendorId: string, required: boolean): Promise<void> {
    await manager.query(
      `INSERT INTO dashboard_team_settings (vendor_id, require_two_step) VALUES ($1, $2)
         ON CONFLICT (vendor_id) DO UPDATE SET require_two_step = EXCLUDED.require_two_step, updated_at = now()`,
      [vendorId, required],
    );
  }

  /** The password hash of a live user of the vendor (to check the current password before a change). */
  async passwordHash(vendorId: string, userId: string): Promise<string | undefined> {
    const [row] = (await this.dataSource.query(`SELECT password_hash FROM dashboard_users WHERE vendor_id = $1 AND id = $2 AND removed_at IS NULL`, [vendorId, userId])) as { password_hash: string }[];
    return row?.password_hash;
  }

  async setPasswordHash(manager: EntityManager, userId: string, passwordHash: string): Promise<number> {
    const [, count] = (await manager.query(`UPDATE dashboard_users SET password_hash = $2, updated_at = now() WHERE id = $1 AND removed_at IS NULL`, [userId, passwordHash])) as [unknown, number];
    return count;
  }

  /** The vendor's user, if not removed; `forUpdate` locks the row in the caller's transaction. */
  async find(vendorId: string, userId: string, manager: Queryable = this.dataSource.manager, forUpdate = false): Promise<DashboardUser | undefined> {
    const [row] = (await manager.query(
      `SELECT ${USER.columns} FROM dashboard_users u WHERE u.vendor_id = $1 AND u.id = $2 AND u.removed_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
      [vendorId, userId],
    )) as DashboardUser[];
    return row;
  }

  list(vendorId: string): Promise<DashboardUser[]> {
    return this.dataSource.query(`SELECT ${USER.columns} FROM dashboard_users u WHERE u.vendor_id = $1 AND u.removed_at IS NULL ORDER BY u.created_at, u.id`, [vendorId]);
  }

  /** Sets (or with nulls clears) the sealed TOTP secret: how many users it changed (0 or 1). */
  async setTotp(manager: EntityManager, vendorId: string, userId: string, sealedSecret: string | null, step: number | null): Promise<number> {
    const [, count] = (await manager.query(
      `UPDATE dashboard_users SET totp_secret_ciphertext = $3, totp_last_step = $4, updated_at = now() WHERE vendor_id = $1 AND id = $2 AND removed_at IS NULL`,
      [vendorId, userId, sealedSecret, step],
    )) as [unknown, number];
    return Number(count);
  }

  async totpSecret(vendorId: string, userId: string): Promise<{ sealed: string; lastStep: string | null } | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT totp_secret_ciphertext AS sealed, totp_last_step::text AS "lastStep" FROM dashboard_users WHERE vendor_id = $1 AND id = $2 AND removed_at IS NULL AND totp_secret_ciphertext IS NOT NULL`,
      [vendorId, userId],
    )) as { sealed: string; lastStep: string | null }[];
    return row;
  }

  /** Records the step unless it (or a later one) was already used: how many rows it changed. */
  async useTotpStep(userId: string, step: number): Promise<number> {
    const [, count] = (await this.dataSource.query(`UPDATE dashboard_users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2)`, [
      userId,
      step,
    ])) as [unknown, number];
    return Number(count);
  }

  /**
   * The user's row locked, after every owner row of the vendor, so two concurrent demotions
   * cannot remove the last two owners.
   */
  async lockWithOwners(manager: EntityManager, vendorId: string, userId: string): Promise<DashboardUser | undefined> {
    await manager.query(`SELECT id FROM dashboard_users WHERE vendor_id = $1 AND role = 'owner' AND removed_at IS NULL FOR UPDATE`, [vendorId]);
    return this.find(vendorId, userId, manager, true);
  }

  async otherOwners(manager: EntityManager, vendorId: string, userId: string): Promise<number> {
    const [{ owners }] = (await manager.query(`SELECT count(*)::int AS owners FROM dashboard_users WHERE vendor_id = $1 AND role = 'owner' AND removed_at IS NULL AND id <> $2`, [
      vendorId,
      userId,
    ])) as { owners: number }[];
    return owners;
  }

  async setRole(manager: EntityManager, vendorId: string, userId: string, role: DashboardRole): Promise<void> {
    await manager.query(`UPDATE dashboard_users SET role = $3, updated_at = now() WHERE vendor_id = $1 AND id = $2`, [vendorId, userId, role]);
  }

  async markRemoved(manager: EntityManager, vendorId: string, userId: string): Promise<void> {
    await manager.query(`UPDATE dashboard_users SET removed_at = now(), updated_at = now() WHERE vendor_id = $1 AND id = $2`, [vendorId, userId]);
  }
}
