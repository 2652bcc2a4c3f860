import type { Command } from 'commander';
import { parseLifetime, TokenService } from '#auth';
import { VendorOperations } from '#staff';
import { cliActor } from '../cli-actor.js';
import { OpsInputError, requireUuid, runCommand, splitList } from '../ops-context.js';

export function registerVendorCommands(program: Command): void {
  program
    .command('vendor:create')
    .description('Create a vendor')
    .requiredOption('--name <name>', 'vendor name')
    .option('--reason <text>', 'why (kept in the staff audit record)')
    .action((options: { name: string; reason?: string }) =>
      runCommand(async (context) => {
        const vendor = await context.get(VendorOperations).createVendor(options.name, options.reason ?? null, cliActor());
        return { id: vendor.id, name: vendor.name };
      }),
    );

  program
    .command('vendor:abilities')
    .description('Enable or disable abilities and scopes on a vendor; every token is checked against them')
    .requiredOption('--vendor <id>', 'vendor id')
    .option('--enable <list>', 'comma-separated abilities to enable')
    .option('--disable <list>', 'comma-separated abilities to disable')
    .option('--reason <text>', 'why (kept in the staff audit record)')
    .action((options: { vendor: string; enable?: string; disable?: string; reason?: string }) =>
      runCommand(async (context) => {
        const vendor = await context
          .get(VendorOperations)
          .setAbilities(requireUuid(options.vendor, '--vendor'), splitList(options.enable), splitList(options.disable), options.reason ?? null, cliActor());
        return { id: vendor.id, enabled_abilities: vendor.enabledAbilities };
      }),
    );

  program
    .command('vendor:release')
    .description('Accept a vendor for production money movements')
    .requiredOption('--vendor <id>', 'vendor id')
    .option('--reason <text>', 'why (kept in the staff audit record)')
    .action((options: { vendor: string; reason?: string }) =>
      runCommand(async (context) => {
        const vendor = await context.get(VendorOperations).release(requireUuid(options.vendor, '--vendor'), options.reason ?? null, cliActor());
        return { id: vendor.id, production_released_at: vendor.productionReleasedAt?.toISOString() ?? null };
      }),
    );

  program
    .command('token:create')
    .description('Issue an API token; the secret is printed once and only its hash is stored')
    .requiredOption('--vendor <id>', 'vendor id')
    .requiredOption('--abilities <list>', 'comma-separated purchase abilities and payout scopes')
    .option('--expires-in <lifetime>', 'lifetime such as 30d, 12h, 90m', '30d')
    .action((options: { vendor: string; abilities: string; expiresIn: string }) =>
      runCommand(async (context) => {
        let lifetime: number;
        try {
          lifetime = parseLifetime(options.expiresIn);
        } catch (error) {
          throw new OpsInputError((error as Error).message);
        }
        return context.get(TokenService).issue(requireUuid(options.vendor, '--vendor'), splitList(options.abilities), lifetime);
      }),
    );

  program
    .command('token:revoke')
    .description('Revoke a token at once')
    .requiredOption('--id <tokenId>', 'token id')
    .action((options: { id: string }) => runCommand((context) => context.get(TokenService).revoke(requireUuid(options.id, '--id'))));
}
