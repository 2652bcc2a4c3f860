import { Injectable } from '@nestjs/common';
import { ServerSessions } from '#web';
import { DashboardSessionRepository, type LiveDashboardSession } from './persistence/dashboard-session.repository.js';
import type { DashboardRole } from './roles.js';

export interface DashboardSession {
  id: string;
  userId: string;
  vendorId: string;
  vendorName: string;
  email: string;
  role: DashboardRole;
  csrfToken: string;
  /** The vendor's owners require two-step sign-in and this person has not set it up: only their account page is open. */
  mustEnrolTwoStep?: boolean;
}

/** Dashboard sessions (#web ServerSessions): each row names the user and the vendor. */
@Injectable()
export class DashboardSessions extends ServerSessions<{ userId: string; vendorId: string }, LiveDashboardSession> {
  constructor(private readonly repository: DashboardSessionRepository) {
    // A session ends after 30 minutes without a request, and in any case 12 hours after sign-in.
    super(repository, { idleMs: 30 * 60_000, absoluteMs: 12 * 3_600_000 });
  }

  /** Sign-out everywhere: every session of the user, this one included. */
  async endAllForUser(userId: string): Promise<number> {
    return this.repository.revokeAllOf(userId);
  }
}
