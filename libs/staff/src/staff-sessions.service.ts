import { Injectable } from '@nestjs/common';
import { ServerSessions } from '#web';
import { StaffSessionRepository, type LiveStaffSession } from './persistence/staff-session.repository.js';

/** Staff sessions are shorter than vendors': idle 15 minutes... */
export const STAFF_SESSION_IDLE_MS = 15 * 60_000;
/** ...and 8 hours at most, one working day. */
export const STAFF_SESSION_ABSOLUTE_MS = 8 * 3_600_000;

/** Staff sessions (#web ServerSessions, like the vendor dashboard's): each row names the staff user. */
@Injectable()
export class StaffSessions extends ServerSessions<{ staffUserId: string }, LiveStaffSession> {
  constructor(repository: StaffSessionRepository) {
    super(repository, { idleMs: STAFF_SESSION_IDLE_MS, absoluteMs: STAFF_SESSION_ABSOLUTE_MS });
  }
}
