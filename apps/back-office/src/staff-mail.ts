import { Injectable, type OnModuleInit } from '@nestjs/common';
import { StaffAccounts, StaffEvents, type StaffEvent, type StaffUser } from '#staff';
import { Mailer, when } from '#web';

const SIGN_OFF = '\n\nThis is an automatic notice from the back-office; the staff audit trail has the record.\n';

/**
 * The back-office's staff mail (docs/BACK-OFFICE.md, "Staff mail"), through the web apps' Mailer
 * (MAIL_SMTP_URL): a person hears when their authenticator is reset or their account is disabled
 * or enabled again, so a change they did not ask for does not go unseen; and those who may decide
 * a four-eyes proposal hear that it waits for them. Mail carries no secret: a setup link is
 * handed over by the admin who reset the authenticator, never mailed. Sent after the change
 * committed; a mail that cannot be sent is logged by the Mailer and changes nothing.
 */
@Injectable()
export class StaffMail implements OnModuleInit {
  constructor(
    private readonly events: StaffEvents,
    private readonly mailer: Mailer,
    private readonly accounts: StaffAccounts,
  ) {}

  onModuleInit(): void {
    this.events.listen((event) => this.send(event));
  }

  private async send(event: StaffEvent): Promise<void> {
    if (!this.mailer.enabled) return;
    const now = when(new Date());
    switch (event.type) {
      case 'staff.totp_reset':
        await this.mailer.send({
          to: event.user.email,
          subject: 'Your back-office authenticator was reset',
          text: `${event.actor.label} reset the authenticator (two-step sign-in) of your back-office account ${event.user.email} at ${now}.${reasonLine(event.reason)}\n\nYour old authenticator no longer works and you were signed out everywhere. To sign in again you need a new setup link and your current password; the admin gives you the link in person or through a channel you trust (it is never mailed).\n\nIf you did not ask for this, tell your security contact at once.${SIGN_OFF}`,
        });
        return;
      case 'staff.disabled':
        await this.mailer.send({
          to: event.user.email,
          subject: 'Your back-office account was disabled',
          text: `${event.actor.label} disabled your back-office account ${event.user.email} (${event.user.role}) at ${now}.${reasonLine(event.reason)}\n\nYou were signed out everywhere. Only an approved proposal of two admins can enable the account again.${SIGN_OFF}`,
        });
        return;
      case 'proposal.approved': {
        if (event.proposal.kind !== 'staff.enable') return;
        const user = await this.accounts.get(event.proposal.subjectId);
        await this.mailer.send({
          to: user.email,
          subject: 'Your back-office account is enabled again',
          text: `Your back-office account ${user.email} (${user.role}) was enabled again at ${now}: proposed by ${event.proposal.proposedByEmail}, approved by ${event.proposal.decidedByEmail ?? 'a second admin'}.\n\nYou sign in with the password and authenticator you had.\n\nIf you did not expect this, tell your security contact at once.${SIGN_OFF}`,
        });
        return;
      }
      case 'proposal.created': {
        const { proposal } = event;
        const deciders = (await this.accounts.list()).filter((user) => mayDecide(user, event.approverRoles) && user.id !== proposal.proposedBy);
        for (const user of deciders) {
          await this.mailer.send({
            to: user.email,
            subject: `Waiting for a second person: ${event.description}`,
            text: `${proposal.proposedByEmail} proposed at ${when(proposal.proposedAt)}:\n\n  ${event.description}\n\nWhy: ${proposal.reason}\n\nIt waits for someone other than the proposer with your role to approve or reject it. In the back-office, open Proposals (/proposals/${proposal.id}) to see the evidence and decide.${SIGN_OFF}`,
          });
        }
        return;
      }
    }
  }
}

function reasonLine(reason: string | null): string {
  return reason ? `\nReason given: ${reason}` : '';
}

function mayDecide(user: StaffUser, roles: readonly string[]): boolean {
  return user.active && !user.disabledAt && roles.includes(user.role);
}
