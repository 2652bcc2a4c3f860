import type { Command } from 'commander';
import { isStaffRole, StaffAccounts, STAFF_ROLES, type SetupLink } from '#staff';
import { cliActor } from '../cli-actor.js';
import { OpsInputError, runCommand } from '../ops-context.js';

/** Where staff reach the back-office: internal only, so by default the port-forward of docs/BACK-OFFICE.md. */
const DEFAULT_BASE_URL = 'http://127.0.0.1:3300';

function setupOutput(link: SetupLink, baseUrl: string) {
  return {
    id: link.user.id,
    email: link.user.email,
    role: link.user.role,
    // The secret is only in this link: it works once, until expires_at.
    setup_url: `${baseUrl.replace(/\/+$/, '')}/setup?token=${link.secret}`,
    expires_at: link.expiresAt.toISOString(),
  };
}

/**
 * Staff accounts from the command line: the first admin, and the break-glass path when no
 * second admin is available. Each command writes the same audit records as the back-office
 * (actor `ops`).
 */
export function registerStaffCommands(program: Command): void {
  program
    .command('staff:create')
    .description('Create a staff account; prints a one-time setup link (24 hours) where the person sets a password and enrols an authenticator')
    .requiredOption('--email <email>', 'the staff member\'s email, used to sign in')
    .requiredOption('--role <role>', STAFF_ROLES.join(', '))
    .option('--base-url <url>', 'the back-office address the person will use', DEFAULT_BASE_URL)
    .action((options: { email: string; role: string; baseUrl: string }) =>
      runCommand(async (context) => {
        if (!isStaffRole(options.role)) throw new OpsInputError(`--role must be one of ${STAFF_ROLES.join(', ')}`);
        return setupOutput(await context.get(StaffAccounts).create(options.email, options.role, cliActor()), options.baseUrl);
      }),
    );

  program
    .command('staff:reset-totp')
    .description("Clear a staff member's authenticator (lost phone), end their sessions, and print a one-time link to enrol a new one")
    .requiredOption('--email <email>', 'the staff member\'s email')
    .option('--base-url <url>', 'the back-office address the person will use', DEFAULT_BASE_URL)
    .action((options: { email: string; baseUrl: string }) =>
      runCommand(async (context) => {
        const accounts = context.get(StaffAccounts);
        const user = await accounts.byEmail(options.email);
        return setupOutput(await accounts.resetSecondFactor(user.id, cliActor()), options.baseUrl);
      }),
    );
}
