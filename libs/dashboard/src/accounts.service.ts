import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { VendorDirectory } from '#auth';
import { NotFoundError, UUID_PATTERN, ValidationFailedError } from '#common';
import { DashboardAuditRepository } from './persistence/dashboard-audit.repository.js';
import { DashboardInviteRepository, type PendingInvite } from './persistence/dashboard-invite.repository.js';
import { DashboardPasswordResetRepository, type PendingPasswordReset } from './persistence/dashboard-password-reset.repository.js';
import { DashboardSessionRepository } from './persistence/dashboard-session.repository.js';
import { DashboardUserRepository, type DashboardUser, type DashboardUserCredentials } from './persistence/dashboard-user.repository.js';
import { isDashboardRole, type DashboardRole } from './roles.js';
import { DUMMY_PASSWORD_HASH, EMAIL_PATTERN, findBySecret, newPasswordHash, normaliseEmail, randomSecret, secretHash, verifyPassword } from '#web';

export const INVITE_LIFETIME_MS = 72 * 3_600_000;
/** A password reset link works once, within the hour after it was asked for. */
export const PASSWORD_RESET_LIFETIME_MS = 3_600_000;

export type { DashboardUser, PendingInvite, PendingPasswordReset };

export interface Actor {
  userId: string | null;
  label: string;
  address?: string | null;
}

/** Dashboard users and their invites; every read and change is scoped to one vendor. */
@Injectable()
export class DashboardAccounts {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: DashboardUserRepository,
    private readonly invites: DashboardInviteRepository,
    private readonly sessions: DashboardSessionRepository,
    private readonly audit: DashboardAuditRepository,
    private readonly resets: DashboardPasswordResetRepository,
    private readonly vendors: VendorDirectory,
  ) {}

  /** Creates a one-time invite; the secret goes into the link only, the database keeps its hash. */
  async invite(vendorId: string, email: string, role: string, actor: Actor): Promise<{ secret: string; email: string; role: DashboardRole; expiresAt: Date }> {
    const normalised = normaliseEmail(email);
    const errors: Record<string, string[]> = {};
    if (!EMAIL_PATTERN.test(normalised)) errors.email = ['Enter a valid email address.'];
    if (!isDashboardRole(role)) errors.role = ['Choose owner, developer, finance or viewer.'];
    if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
    if (!UUID_PATTERN.test(vendorId)) throw new NotFoundError('vendor');
    const secret = randomSecret();
    const expiresAt = new Date(Date.now() + INVITE_LIFETIME_MS);
    await this.dataSource.transaction(async (manager) => {
      await this.vendors.requireExists(vendorId, manager);
      if (await this.users.emailTaken(manager, normalised)) throw new ValidationFailedError({ email: ['This email already has a dashboard account.'] });
      await this.invites.insert(manager, { vendorId, email: normalised, role: role as DashboardRole, tokenHash: secretHash(secret), invitedByUserId: actor.userId, expiresAt });
      await this.audit.record({ vendorId, actorUserId: actor.userId, actor: actor.label, action: 'user.invited', subject: normalised, details: { role }, address: actor.address }, manager);
    });
    return { secret, email: normalised, role: role as DashboardRole, expiresAt };
  }

  /** The invite behind a link, if it is still usable (not accepted, revoked or expired). */
  async pendingInvite(secret: string): Promise<PendingInvite | null> {
    return findBySecret(secret, (hash) => this.invites.pending(hash));
  }

  /** Uses the invite once (the conditional UPDATE is the guard against a second use) and creates the user. */
  async acceptInvite(secret: string, password: string, address: string | null): Promise<DashboardUser> {
    const invite = await this.pendingInvite(secret);
    if (!invite) throw new NotFoundError('invite');
    const passwordHash = await newPasswordHash(password, invite.email);
    return this.dataSource.transaction(async (manager) => {
      if (!(await this.invites.accept(manager, invite.id))) throw new NotFoundError('invite');
      if (await this.users.emailTaken(manager, invite.email)) throw new ValidationFailedError({ email: ['This email already has a dashboard account.'] });
      const user = await this.users.insert(manager, { vendorId: invite.vendorId, email: invite.email, role: invite.role, passwordHash });
      await this.audit.record({ vendorId: invite.vendorId, actorUserId: user.id, actor: invite.email, action: 'user.joined', subject: invite.email, details: { role: invite.role }, address }, manager);
      return user;
    });
  }

  /**
   * Checks an email and password. Unknown emails still cost one argon2 verification, so the
   * answer time does not tell which emails have accounts.
   */
  async checkCredentials(email: string, password: string): Promise<Omit<DashboardUserCredentials, 'passwordHash'> | null> {
    const row: Partial<DashboardUserCredentials> | undefined = await this.users.credentials(normaliseEmail(email));
    const ok = await verifyPassword(row?.passwordHash ?? DUMMY_PASSWORD_HASH, password);
    if (!row || !ok) return null;
    delete row.passwordHash;
    return row as Omit<DashboardUserCredentials, 'passwordHash'>;
  }

  /**
   * A password reset link for the account with this email, or null when there is none (the page
   * answers the same either way, so it does not tell which emails have accounts). The secret goes
   * into the mailed link only; the database keeps its hash, and earlier links stop working.
   */
  async requestPasswordReset(email: string, address: string | null): Promise<{ secret: string; email: string; expiresAt: Date } | null> {
    const user = await this.users.credentials(normaliseEmail(email));
    if (!user) return null;
    const secret = randomSecret();
    const expiresAt = new Date(Date.now() + PASSWORD_RESET_LIFETIME_MS);
    await this.dataSource.transaction(async (manager) => {
      await this.resets.retireOpen(manager, user.id);
      await this.resets.insert(manager, { userId: user.id, tokenHash: secretHash(secret), expiresAt });
      await this.audit.record({ vendorId: user.vendorId, actorUserId: user.id, actor: user.email, action: 'user.password_reset_requested', subject: user.email, address }, manager);
    });
    return { secret, email: user.email, expiresAt };
  }

  /** The reset behind a link, if it is still usable (not used, not expired, its user not removed). */
  async pendingPasswordReset(secret: string): Promise<PendingPasswordReset | null> {
    return findBySecret(secret, (hash) => this.resets.pending(hash));
  }

  /** Uses the link once and sets the new password; every session of the user ends (whoever had them). */
  async resetPassword(secret: string, password: string, address: string | null): Promise<void> {
    const reset = await this.pendingPasswordReset(secret);
    if (!reset) throw new NotFoundError('password reset');
    const passwordHash = await newPasswordHash(password, reset.email);
    await this.dataSource.transaction(async (manager) => {
      if (!(await this.resets.use(manager, reset.id))) throw new NotFoundError('password reset');
      if ((await this.users.setPasswordHash(manager, reset.userId, passwordHash)) === 0) throw new NotFoundError('password reset');
      await this.sessions.revokeAllOf(reset.userId, manager);
      await this.audit.record({ vendorId: reset.vendorId, actorUserId: reset.userId, actor: reset.email, action: 'user.password_reset', subject: reset.email, address }, manager);
    });
  }

  /**
   * The signed-in user's new password, after the current one: the user's other sessions end, the
   * one making the change (`keepSessionId`) goes on.
   */
  async changePassword(vendorId: string, userId: string, current: string, next: string, keepSessionId: string, actor: Actor): Promise<void> {
    const hash = await this.users.passwordHash(vendorId, userId);
    if (!hash) throw new NotFoundError('user');
    if (!(await verifyPassword(hash, current))) throw new ValidationFailedError({ current_password: ['That is not your current password.'] });
    const passwordHash = await newPasswordHash(next, actor.label);
    await this.dataSource.transaction(async (manager) => {
      if ((await this.users.setPasswordHash(manager, userId, passwordHash)) === 0) throw new NotFoundError('user');
      await this.sessions.revokeAllOf(userId, manager, keepSessionId);
      await this.audit.record({ vendorId, actorUserId: userId, actor: actor.label, action: 'user.password_changed', subject: actor.label, address: actor.address }, manager);
    });
  }

  teamRequiresTwoStep(vendorId: string): Promise<boolean> {
    return this.users.teamRequiresTwoStep(vendorId);
  }

  /**
   * An owner requires (or stops requiring) two-step sign-in for the whole team. Requiring it needs
   * the owner's own second factor first, so the owner cannot lock the team out of a page they
   * could not reach themselves. Who has not set it up can then sign in with the password only to
   * set it up on their account page (the dashboard's guard holds them there).
   */
  async setTeamTwoStep(vendorId: string, required: boolean, actor: Actor): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (required) {
        const self = actor.userId ? await this.users.find(vendorId, actor.userId, manager) : undefined;
        if (!self?.totpEnabled) throw new ValidationFailedError({ require_two_step: ['Turn on two-step sign-in for your own account first (Your account).'] });
      }
      await this.users.setTeamRequiresTwoStep(manager, vendorId, required);
      await this.audit.record({ vendorId, actorUserId: actor.userId, actor: actor.label, action: required ? 'team.two_step_required' : 'team.two_step_optional', address: actor.address }, manager);
    });
  }

  async get(vendorId: string, userId: string): Promise<DashboardUser> {
    if (!UUID_PATTERN.test(userId)) throw new NotFoundError('user');
    const row = await this.users.find(vendorId, userId);
    if (!row) throw new NotFoundError('user');
    return row;
  }

  list(vendorId: string): Promise<DashboardUser[]> {
    return this.users.list(vendorId);
  }

  listInvites(vendorId: string): Promise<PendingInvite[]> {
    return this.invites.listPending(vendorId);
  }

  /** Withdraws a pending invite of the vendor: its link stops working at once. */
  async withdrawInvite(vendorId: string, inviteId: string, actor: Actor): Promise<void> {
    if (!UUID_PATTERN.test(inviteId)) throw new NotFoundError('invite');
    await this.dataSource.transaction(async (manager) => {
      const withdrawn = await this.invites.withdraw(manager, vendorId, inviteId);
      if (!withdrawn) throw new NotFoundError('invite');
      await this.audit.record({ vendorId, actorUserId: actor.userId, actor: actor.label, action: 'user.invite_withdrawn', subject: withdrawn.email, details: { role: withdrawn.role }, address: actor.address }, manager);
    });
  }

  /**
   * The user's sealed TOTP secret (FieldEncryption, sealed by the caller) with the step of the
   * code that proved it, or null to turn two-step sign-in off.
   */
  async setTotpSecret(vendorId: string, userId: string, sealedSecret: string | null, step: number | null, actor: Actor): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if ((await this.users.setTotp(manager, vendorId, userId, sealedSecret, step)) === 0) throw new NotFoundError('user');
      await this.audit.record({ vendorId, actorUserId: actor.userId, actor: actor.label, action: sealedSecret ? 'user.totp_enabled' : 'user.totp_disabled', subject: actor.label, address: actor.address }, manager);
    });
  }

  /** The sealed TOTP secret of a user and the last step accepted, if two-step sign-in is on. */
  async totpSecret(vendorId: string, userId: string): Promise<{ sealed: string; lastStep: number | null } | null> {
    const row = await this.users.totpSecret(vendorId, userId);
    return row ? { sealed: row.sealed, lastStep: row.lastStep === null ? null : Number(row.lastStep) } : null;
  }

  /**
   * Records an accepted TOTP step; false when that step (or a later one) was already used, so
   * two requests racing with the same code cannot both pass.
   */
  async useTotpStep(userId: string, step: number): Promise<boolean> {
    return (await this.users.useTotpStep(userId, step)) === 1;
  }

  /** Changes a role; the last owner cannot be demoted, or nobody could manage the team. */
  async changeRole(vendorId: string, userId: string, role: string, actor: Actor): Promise<void> {
    if (!isDashboardRole(role)) throw new ValidationFailedError({ role: ['Choose owner, developer, finance or viewer.'] });
    await this.dataSource.transaction(async (manager) => {
      const target = await this.lockedUser(manager, vendorId, userId);
      if (target.role === 'owner' && role !== 'owner') await this.assertAnotherOwner(manager, vendorId, userId);
      await this.users.setRole(manager, vendorId, userId, role);
      await this.audit.record({ vendorId, actorUserId: actor.userId, actor: actor.label, action: 'user.role_changed', subject: target.email, details: { from: target.role, to: role }, address: actor.address }, manager);
    });
  }

  /** Removes a user and ends their sessions. The vendor's API tokens stay valid: they belong to the vendor. */
  async remove(vendorId: string, userId: string, actor: Actor): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const target = await this.lockedUser(manager, vendorId, userId);
      if (target.role === 'owner') await this.assertAnotherOwner(manager, vendorId, userId);
      await this.users.markRemoved(manager, vendorId, userId);
      await this.sessions.revokeAllOf(userId, manager);
      await this.audit.record({ vendorId, actorUserId: actor.userId, actor: actor.label, action: 'user.removed', subject: target.email, details: { role: target.role }, address: actor.address }, manager);
    });
  }

  private async lockedUser(manager: EntityManager, vendorId: string, userId: string): Promise<DashboardUser> {
    if (!UUID_PATTERN.test(userId)) throw new NotFoundError('user');
    const row = await this.users.lockWithOwners(manager, vendorId, userId);
    if (!row) throw new NotFoundError('user');
    return row;
  }

  private async assertAnotherOwner(manager: EntityManager, vendorId: string, userId: string): Promise<void> {
    if ((await this.users.otherOwners(manager, vendorId, userId)) === 0) throw new ValidationFailedError({ role: ['The vendor must keep at least one owner.'] });
  }
}
