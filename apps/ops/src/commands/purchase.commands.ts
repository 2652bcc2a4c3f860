import type { INestApplicationContext } from '@nestjs/common';
import type { Command } from 'commander';
import { PurchaseCatalogueService, PurchaseCatalogueSyncService, PurchasePricingService, PurchaseSpendControlsService } from '#purchase';
import { productListOf, VendorFunding, VendorOperations } from '#staff';
import { cliActor } from '../cli-actor.js';
import { cliProposer, printableOutcome, withProposerOptions, type ProposerOptions } from '../four-eyes-proposer.js';
import { parseInteger, requireUuid, runCommand } from '../ops-context.js';
import type { DemoSeedStep } from './demo-seed.command.js';

export function registerPurchaseCommands(program: Command): void {
  program
    .command('catalogue:sync')
    .description("Import the purchase provider's catalogue")
    .action(() => runCommand((context) => context.get(PurchaseCatalogueSyncService).sync()));

  for (const [name, enable] of [['catalogue:enable', true], ['catalogue:disable', false]] as const) {
    program
      .command(name)
      .description(`${enable ? 'Enable' : 'Withdraw'} products for a vendor`)
      .requiredOption('--vendor <id>', 'vendor id')
      .requiredOption('--products <list>', '"all" or comma-separated product ids')
      .option('--reason <text>', 'why (kept in the staff audit record)')
      .action((options: { vendor: string; products: string; reason?: string }) =>
        runCommand((context) => context.get(VendorOperations).setProducts(requireUuid(options.vendor, '--vendor'), enable, productListOf(options.products), options.reason ?? null, cliActor())),
      );
  }

  program
    .command('pricing:publish')
    .description('Publish a pricing version: vendor price = wholesale + margin')
    .requiredOption('--margin-bps <n>', 'margin in basis points (100 = 1%)')
    .option('--reason <text>', 'why (kept in the staff audit record)')
    .action((options: { marginBps: string; reason?: string }) =>
      // Through VendorOperations: the version and its `pricing.published` audit record commit together, as from the back-office.
      runCommand((context) => context.get(VendorOperations).publishPricing(parseInteger(options.marginBps, '--margin-bps', 0), options.reason ?? null, cliActor())),
    );

  withProposerOptions(
    program
      .command('limits:set')
      .description("Set a vendor's spend controls: a raise of the daily cap or per-purchase maximum above STAFF_FOUR_EYES_ABOVE_CENTS is a four-eyes proposal")
      .requiredOption('--vendor <id>', 'vendor id')
      .requiredOption('--daily-cap-minor <n>', 'daily allowance in ZAR cents')
      .requiredOption('--transaction-max-minor <n>', 'maximum charge per purchase in ZAR cents')
      .requiredOption('--velocity-count <n>', 'admissions allowed per window')
      .requiredOption('--velocity-window-seconds <n>', 'window length in seconds')
      .option('--reason <text>', 'why (kept in the staff audit record; at least 10 characters for a proposal)'),
  ).action((options: { vendor: string; dailyCapMinor: string; transactionMaxMinor: string; velocityCount: string; velocityWindowSeconds: string; reason?: string } & ProposerOptions) =>
    runCommand(async (context) => {
      const limits = {
        dailyCapMinor: parseInteger(options.dailyCapMinor, '--daily-cap-minor', 0),
        transactionMaxMinor: parseInteger(options.transactionMaxMinor, '--transaction-max-minor', 1),
        velocityCount: parseInteger(options.velocityCount, '--velocity-count', 1),
        velocityWindowSeconds: parseInteger(options.velocityWindowSeconds, '--velocity-window-seconds', 1),
      };
      // The back-office's rule through the same service (VendorFunding): applied with its `limits.set`
      // record (actor `ops:<user>`), or, for a raise above the threshold, a `limits.set` proposal.
      const vendorId = requireUuid(options.vendor, '--vendor');
      const proposer = cliProposer(context, options, { command: 'limits:set', vendorId });
      const outcome = await context.get(VendorFunding).setLimitsFromCli(vendorId, limits, options.reason ?? null, cliActor(), proposer);
      return printableOutcome(context, outcome, options.backOfficeUrl);
    }),
  );

  for (const [name, paused] of [['purchases:pause', true], ['purchases:resume', false]] as const) {
    program
      .command(name)
      .description(`${paused ? 'Pause' : 'Resume'} purchases for one vendor, or globally without --vendor`)
      .option('--vendor <id>', 'vendor id (omit for every vendor)')
      .option('--reason <text>', 'why (kept in the staff audit record)')
      .action((options: { vendor?: string; reason?: string }) =>
        runCommand((context) => {
          const operations = context.get(VendorOperations);
          // Every vendor: recorded with subject type `platform`.
          if (!options.vendor) return operations.setGloballyPaused(paused, options.reason ?? null, cliActor());
          // One vendor: as the back-office's pause/resume, with the same audit record (actor `ops:<user>`).
          return operations.setPaused(requireUuid(options.vendor, '--vendor'), paused, options.reason ?? null, cliActor());
        }),
      );
  }
}

/** Demo vendor: whole catalogue, a pricing version if none exists, generous spend controls. */
export const seedPurchaseDemo: DemoSeedStep = async (context: INestApplicationContext, vendorId: string) => {
  await context.get(PurchaseCatalogueSyncService).sync();
  await context.get(PurchaseCatalogueService).enableProducts(vendorId, 'all');
  if (!(await context.get(PurchasePricingService).currentVersion())) await context.get(PurchasePricingService).publish(500);
  await context.get(PurchaseSpendControlsService).setLimits(vendorId, {
    dailyCapMinor: 5_000_000,
    transactionMaxMinor: 500_000,
    velocityCount: 120,
    velocityWindowSeconds: 60,
  });
};
