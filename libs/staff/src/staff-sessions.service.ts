import { Injectable } from '@nestjs/common';
import { ServerSessions } from '#web';
import { StaffSessionRepository, type LiveStaffSession } from './persistence/staff-session.repository.js';

/** Staff sessions (#web ServerSessions, like the vendor dashboard's): each row names the staff user. */
@Injectable()
export class StaffSessions extends ServerSessions<{ staffUserId: string }, LiveStaffSession> {
  constructor(repository: StaffSessionRepository) {
    // Shorter than vendors': idle 15 minutes, and 8 hours (one working day) at most.
    super(repository, { idleMs: 15 * 60_000, absoluteMs: 8 * 3_600_000 });
  }
}
