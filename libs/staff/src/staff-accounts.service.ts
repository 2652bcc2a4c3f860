import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { FieldEncryption, NotFoundError, UUID_PATTERN, ValidationFailedError } from '#common';
import { DUMMY_PASSWORD_HASH, EMAIL_PATTERN, findBySecret, newPasswordHash, newTotpSecret, normaliseEmail, openTotpEnrolment, randomSecret, sealTotpEnrolment, secretHash, totpContext, totpStep, useTotpCode, verifyPassword } from '#web';
import { StaffActionRefused } from './model/errors.js';
import type { StaffActor, StaffUser } from './model/staff.js';
import { isStaffRole, type StaffRole } from './model/staff-roles.js';
import { StaffSessionRepository } from './persistence/staff-session.repository.js';
import { StaffUserRepository, type StaffSetup } from './persistence/staff-user.repository.js';
import { StaffAuditLog } from './persistence/staff-audit.repository.js';
import { StaffEvents } from './staff-events.js';

/** A setup link (new account or second-factor reset) works once, for this long. */
export const SETUP_LIFETIME_MS = 24 * 3_600_000;

export interface SetupLink {
  user: StaffUser;
  /** Only in the link shown once; the table keeps its SHA-256. */
  secret: string;
  expiresAt: Date;
}

export interface SetupForm {
  /** New accounts choose a password; a second-factor reset proves the existing one instead. */
  password: string;
  /** The setup page's key as newEnrolment sealed it, posted back with the first code. */
  enrolment: unknown;
  code: unknown;
}

/** Staff accounts: created with a one-time setup link, both factors required, every change audited. */
@Injectable()
export class StaffAccounts {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: StaffUserRepository,
    private readonly sessions: StaffSessionRepository,
    private readonly audit: StaffAuditLog,
    private readonly encryption: FieldEncryption,
    private readonly events: StaffEvents,
  ) {}

  /** A new account without factors (the operator CLI): the person sets a password and enrols TOTP through the link. */
  async create(email: string, role: string, actor: StaffActor): Promise<SetupLink> {
    return this.dataSource.transaction(async (manager) => {
      const link = await this.createWithin(manager, email, role);
      await this.audit.record({ actor, action: 'staff.created', subjectType: 'staff_user', subjectId: link.user.id, details: { email: link.user.email, role: link.user.role } }, manager);
      return link;
    });
  }

  /** The checks of a new account, without writing: what a `staff.create` proposal checks when proposed. */
  async checkNew(manager: Pick<EntityManager, 'query'>, email: string, role: string): Promise<{ email: string; role: StaffRole }> {
    const normalised = normaliseEmail(email);
    const errors: Record<string, string[]> = {};
    if (!EMAIL_PATTERN.test(normalised)) errors.email = ['Enter a valid email address.'];
    if (!isStaffRole(role)) errors.role = ['Choose support, operator, approver or admin.'];
    if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
    if (await this.users.emailInUse(manager, normalised)) throw new ValidationFailedError({ email: ['This email already has a staff account.'] });
    return { email: normalised, role: role as StaffRole };
  }

  /** Creates the account in the caller's transaction; the caller writes the audit record (with its approval). */
  async createWithin(manager: EntityManager, email: string, role: string): Promise<SetupLink> {
    const checked = await this.checkNew(manager, email, role);
    const secret = randomSecret();
    const expiresAt = new Date(Date.now() + SETUP_LIFETIME_MS);
    const user = await this.users.insert(manager, checked.email, checked.role, secretHash(secret), expiresAt);
    return { user, secret, expiresAt };
  }

  /** A role change in the caller's transaction (an approved `staff.role` proposal); null when the account is gone. */
  setRoleWithin(manager: EntityManager, id: string, role: StaffRole): Promise<StaffUser | null> {
    return this.users.setRole(manager, id, role);
  }

  /** The account behind a setup link, if the link is still usable. */
  async setup(secret: unknown): Promise<StaffSetup | null> {
    return findBySecret(secret, (hash) => this.users.bySetupHash(hash));
  }

  /** Finishes a setup link: password (new account) or proof of it (reset), and the first TOTP code. */
  /**
   * A new authenticator key for an account's setup page, with the same key sealed for the form to
   * carry back (sealTotpEnrolment): the browser shows it but cannot choose it.
   */
  newEnrolment(staffUserId: string): { secret: string; enrolment: string } {
    const secret = newTotpSecret();
    return { secret, enrolment: sealTotpEnrolment(this.encryption, secret, totpContext(staffUserId, 'staff')) };
  }

  /** The key a setup form carried back, when this server made it for that account recently; else null. */
  openEnrolment(staffUserId: string, enrolment: unknown): string | null {
    return openTotpEnrolment(this.encryption, enrolment, totpContext(staffUserId, 'staff'));
  }

  async completeSetup(secret: string, form: SetupForm, address: string | null): Promise<StaffUser> {
    const setup = await this.setup(secret);
    if (!setup) throw new NotFoundError('setup link');
    let passwordHash: string | null = null;
    if (setup.hasPassword) {
      if (!(await verifyPassword(setup.passwordHash ?? DUMMY_PASSWORD_HASH, form.password))) throw new ValidationFailedError({ password: ['The password is not right.'] });
    } else {
      passwordHash = await newPasswordHash(form.password, setup.user.email);
    }
    const totpSecret = this.openEnrolment(setup.user.id, form.enrolment);
    if (totpSecret === null) throw new ValidationFailedError({ code: ['This setup page has expired. Add the new key shown and enter its code.'] });
    const step = await totpStep(totpSecret, form.code);
    if (step === null) throw new ValidationFailedError({ code: ['That code does not match. Enter the current 6-digit code from the app.'] });
    const sealed = this.encryption.encrypt(totpSecret, totpContext(setup.user.id, 'staff'));
    return this.dataSource.transaction(async (manager) => {
      const user = await this.users.completeSetup(manager, secretHash(secret), passwordHash, sealed, step);
      if (!user) throw new NotFoundError('setup link');
      await this.audit.record({ actor: { staffUserId: user.id, label: user.email, address }, action: setup.hasPassword ? 'staff.totp_enrolled' : 'staff.setup_completed', subjectType: 'staff_user', subjectId: user.id }, manager);
      return user;
    });
  }

  /**
   * Checks both factors. Unknown emails still cost one argon2 verification, so the answer time
   * does not tell which emails have accounts; an account without a second factor cannot sign in.
   */
  async checkCredentials(email: string, password: string, code: unknown): Promise<StaffUser | null> {
    const found = await this.users.credentials(normaliseEmail(email));
    const passwordOk = await verifyPassword(found?.passwordHash ?? DUMMY_PASSWORD_HASH, password);
    if (!found || !passwordOk || !found.totpSealed) return null;
    return (await this.usedCode(found.user, found.totpSealed, found.totpLastStep, code)) ? found.user : null;
  }

  /**
   * The operator CLI's proof of who proposes a money change (`ops payout:fund --proposer E --code C`
   * above the four-eyes threshold): the named active account's current authenticator code, used
   * once like a sign-in's. Without it anyone with the CLI could name a colleague as proposer and
   * approve the proposal themselves. Null for an unknown email, a disabled account, no second
   * factor, or a wrong or replayed code (one answer for all).
   */
  async checkSecondFactor(email: string, code: unknown): Promise<StaffUser | null> {
    const found = await this.users.credentials(normaliseEmail(email));
    if (!found?.totpSealed) return null;
    return (await this.usedCode(found.user, found.totpSealed, found.totpLastStep, code)) ? found.user : null;
  }

  /** Whether the code is the account's current one; it is then used up (a replayed or raced code is refused like a wrong one). */
  private usedCode(user: StaffUser, sealed: string, lastStep: number | null, code: unknown): Promise<boolean> {
    return useTotpCode(this.encryption, { secret: sealed, context: totpContext(user.id, 'staff'), lastStep }, code, (step) => this.users.useTotpStep(user.id, step));
  }

  list(): Promise<StaffUser[]> {
    return this.users.list();
  }

  async get(id: string): Promise<StaffUser> {
    const user = UUID_PATTERN.test(id) ? await this.users.get(id) : null;
    if (!user) throw new NotFoundError('staff user');
    return user;
  }

  async byEmail(email: string): Promise<StaffUser> {
    const user = await this.users.getActiveByEmail(normaliseEmail(email));
    if (!user) throw new NotFoundError('staff user');
    return user;
  }

  /** Lost phone: the second factor is cleared, sessions end, and a new setup link enrols a new one (the password stays). */
  async resetSecondFactor(id: string, actor: StaffActor, reason: string | null = null): Promise<SetupLink> {
    const secret = randomSecret();
    const expiresAt = new Date(Date.now() + SETUP_LIFETIME_MS);
    const link = await this.dataSource.transaction(async (manager) => {
      const user = UUID_PATTERN.test(id) ? await this.users.resetSecondFactor(manager, id, secretHash(secret), expiresAt) : null;
      if (!user) throw new NotFoundError('staff user');
      const ended = await this.sessions.revokeAllOf(user.id, manager);
      await this.audit.record({ actor, action: 'staff.totp_reset', subjectType: 'staff_user', subjectId: user.id, reason, details: { email: user.email, sessions_ended: ended } }, manager);
      return { user, secret, expiresAt };
    });
    await this.events.emit({ type: 'staff.totp_reset', user: link.user, actor, reason });
    return link;
  }

  /** Disabling is immediate and ends every session; reducing access never waits for a second person. */
  async disable(id: string, actor: StaffActor, reason: string | null = null): Promise<StaffUser> {
    if (actor.staffUserId === id) throw new ValidationFailedError({ _: ['You cannot disable your own account.'] });
    const disabled = await this.dataSource.transaction(async (manager) => {
      const user = UUID_PATTERN.test(id) ? await this.users.disable(manager, id) : null;
      if (!user) throw new NotFoundError('staff user');
      const ended = await this.sessions.revokeAllOf(user.id, manager);
      await this.audit.record({ actor, action: 'staff.disabled', subjectType: 'staff_user', subjectId: user.id, reason, details: { email: user.email, role: user.role, sessions_ended: ended } }, manager);
      return user;
    });
    await this.events.emit({ type: 'staff.disabled', user: disabled, actor, reason });
    return disabled;
  }

  /**
   * Whether a disabled account may be enabled again: it is disabled, and no active account has
   * taken its email meanwhile (one active account per email).
   */
  async checkEnable(manager: EntityManager, id: string): Promise<StaffUser> {
    const user = UUID_PATTERN.test(id) ? await this.users.get(id, manager) : null;
    if (!user) throw new ValidationFailedError({ staff_user: ['Unknown staff user.'] });
    if (!user.disabledAt) throw new StaffActionRefused(`${user.email} is not disabled.`);
    if (await this.users.emailInUse(manager, user.email)) throw new StaffActionRefused(`Another active account uses ${user.email}.`);
    return user;
  }

  /**
   * Enables a disabled account again (an approved proposal, in its transaction): the same
   * password and authenticator as before; the role is the one it had.
   */
  async enableWithin(manager: EntityManager, id: string): Promise<StaffUser | null> {
    return this.users.enable(manager, id);
  }
}
