import { Injectable, Logger } from '@nestjs/common';
import type { Proposal } from './model/proposals.js';
import type { StaffActor, StaffUser } from './model/staff.js';
import type { StaffRole } from './model/staff-roles.js';

/** What happened to staff, told after it committed. */
export type StaffEvent =
  | { type: 'proposal.created'; proposal: Proposal; description: string; approverRoles: readonly StaffRole[] }
  | { type: 'proposal.approved'; proposal: Proposal; description: string }
  | { type: 'staff.totp_reset' | 'staff.disabled'; user: StaffUser; actor: StaffActor; reason: string | null };

export type StaffEventListener = (event: StaffEvent) => Promise<void>;

/**
 * Tells listeners about staff events once their transaction committed, so nothing is announced
 * that did not happen. The back-office listens and mails staff (docs/BACK-OFFICE.md, "Staff
 * mail"); the operator CLI does not listen. A listener's failure is logged and never undoes or
 * fails the action: the audit record, not the mail, is the record.
 */
@Injectable()
export class StaffEvents {
  private readonly logger = new Logger(StaffEvents.name);
  private readonly listeners: StaffEventListener[] = [];

  listen(listener: StaffEventListener): void {
    this.listeners.push(listener);
  }

  async emit(event: StaffEvent): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(event);
      } catch (error) {
        this.logger.error(`staff event ${event.type} listener failed: ${(error as Error).message}`);
      }
    }
  }
}
