import type { Command } from 'commander';
import { GatewayEnv } from '#config';
import { DashboardAccounts, isDashboardRole } from '#dashboard';
import { OpsInputError, requireUuid, runCommand } from '../ops-context.js';

/** The one-time link a person opens to set their password; its secret is only in this URL. */
export function inviteUrl(config: GatewayEnv, secret: string): string {
  return `${config.DASHBOARD_PUBLIC_URL.replace(/\/+$/, '')}/invite?token=${secret}`;
}

export function registerDashboardCommands(program: Command): void {
  program
    .command('dashboard:invite')
    .description("Invite a person to a vendor's dashboard (staff invite the first owner); prints a one-time link that expires")
    .requiredOption('--vendor <id>', 'vendor id')
    .requiredOption('--email <email>', "the person's email, used to sign in")
    .option('--role <role>', 'owner, developer, finance or viewer', 'owner')
    .action((options: { vendor: string; email: string; role: string }) =>
      runCommand(async (context) => {
        if (!isDashboardRole(options.role)) throw new OpsInputError('--role must be owner, developer, finance or viewer');
        const invite = await context.get(DashboardAccounts).invite(requireUuid(options.vendor, '--vendor'), options.email, options.role, { userId: null, label: 'ops' });
        return { invite_url: inviteUrl(context.get(GatewayEnv), invite.secret), expires_at: invite.expiresAt.toISOString() };
      }),
    );
}
