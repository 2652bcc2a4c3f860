import type { StaffRole } from './staff-roles.js';

export interface StaffUser {
  id: string;
  email: string;
  role: StaffRole;
  /** Both factors set: the person finished their setup link and can sign in. */
  active: boolean;
  setupPending: boolean;
  createdAt: Date;
  disabledAt: Date | null;
}

export interface StaffSession {
  id: string;
  staffUserId: string;
  email: string;
  role: StaffRole;
  csrfToken: string;
}

/** Who acted: a signed-in staff user, or the operator CLI (`staffUserId` null, label `ops`). */
export interface StaffActor {
  staffUserId: string | null;
  label: string;
  address?: string | null;
}

export function actorOf(session: Pick<StaffSession, 'staffUserId' | 'email'>, address: string | null = null): StaffActor {
  return { staffUserId: session.staffUserId, label: session.email, address };
}

/**
 * The operator CLI as an actor: `ops:<who ran it>` (apps/ops names the OS user, or `OPS_ACTOR`),
 * so a CLI record says who as a page's record does.
 */
export function opsActor(who: string): StaffActor {
  return { staffUserId: null, label: `ops:${who}` };
}
