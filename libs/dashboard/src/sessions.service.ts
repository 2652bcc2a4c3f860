import { Injectable } from '@nestjs/common';
import { ServerSessions } from '#web';
import { DashboardSessionRepository, type LiveDashboardSession } from './persistence/dashboard-session.repository.js';
import type { DashboardRole } from './roles.js';

/** A session ends after this long without a request... */
export const SESSION_IDLE_MS = 30 * 60_000;
/** ...and in any case this long after sign-in. */
export const SESSION_ABSOLUTE_MS = 12 * 3_600_000;

export interface DashboardSession {
  id: string;
  userId: string;
  vendorId: string;
  vendorName: string;
  email: string;
  role: DashboardRole;
  csrfToken: string;
}

/** Dashboard sessions (#web ServerSessions): each row names the user and the vendor. */
@Injectable()
export class DashboardSessions extends ServerSessions<{ userId: string; vendorId: string }, LiveDashboardSession> {
  constructor(private readonly repository: DashboardSessionRepository) {
    super(repository, { idleMs: SESSION_IDLE_MS, absoluteMs: SESSION_ABSOLUTE_MS });
  }

  /** Sign-out everywhere: every session of the user, this one included. */
  async endAllForUser(userId: string): Promise<number> {
    return this.repository.revokeAllOf(userId);
  }
}
