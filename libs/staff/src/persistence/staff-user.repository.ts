import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readShape, updateReturning, type Queryable } from '#database';
import type { StaffUser } from '../model/staff.js';
import type { StaffRole } from '../model/staff-roles.js';

/** The credentials of an active staff user, for sign-in only. */
export interface StaffCredentials {
  user: StaffUser;
  passwordHash: string | null;
  totpSealed: string | null;
  totpLastStep: number | null;
}

/** A setup link's account: whether it still needs a password (new) or only a second factor (reset). */
export interface StaffSetup {
  user: StaffUser;
  hasPassword: boolean;
  passwordHash: string | null;
}

const USER = readShape<StaffUser>({
  id: 'u.id', email: 'u.email', role: 'u.role', active: '(u.password_hash IS NOT NULL AND u.totp_secret_ciphertext IS NOT NULL)',
  setupPending: '(u.setup_token_hash IS NOT NULL AND u.setup_expires_at > now())', createdAt: 'u.created_at', disabledAt: 'u.disabled_at',
});

/** staff_users: accounts, their factors and one-time setup links. */
@Injectable()
export class StaffUserRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(manager: Queryable, email: string, role: StaffRole, setupHash: string, setupExpiresAt: Date): Promise<StaffUser> {
    const [row] = await manager.query(
      `INSERT INTO staff_users AS u (email, role, setup_token_hash, setup_expires_at) VALUES ($1, $2, $3, $4) RETURNING ${USER.columns}`,
      [email, role, setupHash, setupExpiresAt],
    );
    return USER.read(row);
  }

  async emailInUse(manager: Queryable, email: string): Promise<boolean> {
    const rows = await manager.query(`SELECT 1 FROM staff_users WHERE email = $1 AND disabled_at IS NULL`, [email]);
    return rows.length > 0;
  }

  async get(id: string, manager: Queryable = this.dataSource.manager): Promise<StaffUser | null> {
    return USER.first(await manager.query(`SELECT ${USER.columns} FROM staff_users u WHERE u.id = $1`, [id]));
  }

  async getActiveByEmail(email: string): Promise<StaffUser | null> {
    return USER.first(await this.dataSource.query(`SELECT ${USER.columns} FROM staff_users u WHERE u.email = $1 AND u.disabled_at IS NULL`, [email]));
  }

  async list(): Promise<StaffUser[]> {
    const rows: object[] = await this.dataSource.query(`SELECT ${USER.columns} FROM staff_users u ORDER BY u.disabled_at NULLS FIRST, u.email, u.id`);
    return rows.map(USER.read);
  }

  async credentials(email: string): Promise<StaffCredentials | null> {
    const [row] = await this.dataSource.query(
      `SELECT ${USER.columns}, u.password_hash, u.totp_secret_ciphertext, u.totp_last_step::text AS totp_last_step FROM staff_users u WHERE u.email = $1 AND u.disabled_at IS NULL`,
      [email],
    );
    if (!row) return null;
    return { user: USER.read(row), passwordHash: row.password_hash, totpSealed: row.totp_secret_ciphertext, totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step) };
  }

  /** The account behind a live setup link. */
  async bySetupHash(hash: string): Promise<StaffSetup | null> {
    const [row] = await this.dataSource.query(
      `SELECT ${USER.columns}, u.password_hash FROM staff_users u WHERE u.setup_token_hash = $1 AND u.setup_expires_at > now() AND u.disabled_at IS NULL`,
      [hash],
    );
    return row ? { user: USER.read(row), hasPassword: row.password_hash !== null, passwordHash: row.password_hash } : null;
  }

  /**
   * Finishes a setup link once (the guarded UPDATE is the guard against a second use): the
   * password (kept when `passwordHash` is null) and the sealed second factor with its first step.
   */
  async completeSetup(manager: Queryable, hash: string, passwordHash: string | null, totpSealed: string, step: number): Promise<StaffUser | null> {
    return USER.first(await updateReturning<object>(
      manager,
      `UPDATE staff_users u SET password_hash = COALESCE($2, u.password_hash), totp_secret_ciphertext = $3, totp_last_step = $4,
              setup_token_hash = NULL, setup_expires_at = NULL, updated_at = now()
        WHERE u.setup_token_hash = $1 AND u.setup_expires_at > now() AND u.disabled_at IS NULL
          AND ($2::text IS NOT NULL OR u.password_hash IS NOT NULL)
        RETURNING ${USER.columns}`,
      [hash, passwordHash, totpSealed, step],
    ));
  }

  /** Clears the second factor and issues a new setup link: the person enrols again before signing in. */
  async resetSecondFactor(manager: Queryable, id: string, setupHash: string, setupExpiresAt: Date): Promise<StaffUser | null> {
    return USER.first(await updateReturning<object>(
      manager,
      `UPDATE staff_users u SET totp_secret_ciphertext = NULL, totp_last_step = NULL, setup_token_hash = $2, setup_expires_at = $3, updated_at = now()
        WHERE u.id = $1 AND u.disabled_at IS NULL RETURNING ${USER.columns}`,
      [id, setupHash, setupExpiresAt],
    ));
  }

  /**
   * Records an accepted TOTP step; false when that step (or a later one) was already used, so
   * two requests racing with the same code cannot both pass.
   */
  async useTotpStep(id: string, step: number): Promise<boolean> {
    const rows = await updateReturning(this.dataSource.manager, `UPDATE staff_users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id`, [id, step]);
    return rows.length === 1;
  }

  async setRole(manager: Queryable, id: string, role: StaffRole): Promise<StaffUser | null> {
    return USER.first(await updateReturning<object>(manager, `UPDATE staff_users u SET role = $2, updated_at = now() WHERE u.id = $1 AND u.disabled_at IS NULL RETURNING ${USER.columns}`, [id, role]));
  }

  async enable(manager: Queryable, id: string): Promise<StaffUser | null> {
    return USER.first(await updateReturning<object>(manager, `UPDATE staff_users u SET disabled_at = NULL, updated_at = now() WHERE u.id = $1 AND u.disabled_at IS NOT NULL RETURNING ${USER.columns}`, [id]));
  }

  async disable(manager: Queryable, id: string): Promise<StaffUser | null> {
    return USER.first(await updateReturning<object>(
      manager,
      `UPDATE staff_users u SET disabled_at = now(), setup_token_hash = NULL, setup_expires_at = NULL, updated_at = now() WHERE u.id = $1 AND u.disabled_at IS NULL RETURNING ${USER.columns}`,
      [id],
    ));
  }
}
