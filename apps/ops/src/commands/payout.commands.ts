import type { INestApplicationContext } from '@nestjs/common';
import type { Command } from 'commander';
import { formatCents, parseZarAmount2dp, type Cents } from '#money';
import { PayoutAccountService, PayoutMethodsService, type MethodLimitsChange } from '#payout';
import { VendorFunding, VendorOperations } from '#staff';
import { cliActor } from '../cli-actor.js';
import { cliProposer, printableOutcome, withProposerOptions, type ProposerOptions } from '../four-eyes-proposer.js';
import { OpsInputError, requireUuid, runCommand, splitList } from '../ops-context.js';
import { DEMO_SEED_REASON, type DemoSeedStep } from './demo-seed.command.js';

function parseAmount(value: string, option: string): Cents {
  try {
    return parseZarAmount2dp(value);
  } catch {
    throw new OpsInputError(`${option} must be a ZAR amount with two decimals, e.g. 1000.00`);
  }
}

/** `--fee bank_a_instant_money=1.50,rtc_eft=0.00` (repeatable). */
function parseFees(values: string[]): Record<string, Cents> {
  const fees: Record<string, Cents> = {};
  for (const entry of values.flatMap((value) => splitList(value))) {
    const [method, amount] = entry.split('=');
    if (!method || amount === undefined) throw new OpsInputError('--fee takes method=amount, e.g. rtc_eft=1.50');
    fees[method] = parseAmount(amount, '--fee');
  }
  return fees;
}

/**
 * `--min bank_a_instant_money=50.00 --max rtc_eft=10000.00` (each repeatable, or comma lists):
 * per-vendor limits that tighten the catalogue's; `method=catalogue` removes the vendor's own
 * limit. Whether a value stays inside the catalogue's limits and on the increment is checked by
 * PayoutMethodsService, which refuses any loosening.
 */
function parseLimits(minimums: string[], maximums: string[]): Record<string, MethodLimitsChange> {
  const limits: Record<string, { minimumCents?: Cents | null; maximumCents?: Cents | null }> = {};
  for (const [option, values, key] of [
    ['--min', minimums, 'minimumCents'],
    ['--max', maximums, 'maximumCents'],
  ] as const) {
    for (const entry of values.flatMap((value) => splitList(value))) {
      const [method, amount, extra] = entry.split('=');
      if (!method || amount === undefined || extra !== undefined) throw new OpsInputError(`${option} takes method=amount, e.g. bank_a_instant_money=50.00 (or method=catalogue)`);
      if (limits[method]?.[key] !== undefined) throw new OpsInputError(`${option} names ${method} twice`);
      limits[method] = { ...limits[method], [key]: amount === 'catalogue' ? null : parseAmount(amount, option) };
    }
  }
  return limits;
}

const repeatable = (value: string, previous: string[]) => [...previous, value];

export function registerPayoutCommands(program: Command): void {
  withProposerOptions(
    program
      .command('payout:fund')
      .description('Credit the prefunded payout account: at once up to STAFF_FOUR_EYES_ABOVE_CENTS, above it a four-eyes proposal approved in the back-office')
      .requiredOption('--vendor <id>', 'vendor id')
      .requiredOption('--amount <zar>', 'amount such as 1000.00')
      .option('--note <text>', 'why the funds arrived (bank reference; at least 10 characters for a proposal)'),
  ).action((options: { vendor: string; amount: string; note?: string } & ProposerOptions) =>
    // At or below the threshold the credit and its staff audit record (the back-office's
    // `payout.funded`, actor `ops:<user>`) commit together; above it, a `payout.fund` proposal only.
    runCommand(async (context) => {
      const vendorId = requireUuid(options.vendor, '--vendor');
      const proposer = cliProposer(context, options, { command: 'payout:fund', vendorId });
      const outcome = await context.get(VendorFunding).fundFromCli(vendorId, parseAmount(options.amount, '--amount'), options.note ?? null, cliActor(), proposer);
      return printableOutcome(context, outcome, options.backOfficeUrl);
    }),
  );

  program
    .command('payout:methods')
    .description('Enable or disable payout methods, set per-method vendor fees, and tighten per-method limits (never beyond the catalogue)')
    .requiredOption('--vendor <id>', 'vendor id')
    .option('--enable <list>', 'methods to enable')
    .option('--disable <list>', 'methods to disable')
    .option('--fee <method=amount>', 'per-method vendor fee (repeatable)', repeatable, [] as string[])
    .option('--min <method=amount>', "per-method minimum, at or above the catalogue's (repeatable; method=catalogue removes it)", repeatable, [] as string[])
    .option('--max <method=amount>', "per-method maximum, at or below the catalogue's (repeatable; method=catalogue removes it)", repeatable, [] as string[])
    .option('--reason <text>', 'why (kept in the staff audit record)')
    .action((options: { vendor: string; enable?: string; disable?: string; fee: string[]; min: string[]; max: string[]; reason?: string }) =>
      runCommand(async (context) => {
        const vendorId = requireUuid(options.vendor, '--vendor');
        const change = { enable: splitList(options.enable), disable: splitList(options.disable), fees: parseFees(options.fee), limits: parseLimits(options.min, options.max) };
        // With its `payout.methods_set` audit record, in one transaction.
        const methods = await context.get(VendorOperations).configurePayoutMethods(vendorId, change, options.reason ?? null, cliActor());
        // The effective limits (the vendor's tightening, else the catalogue's) as amounts, next to the cents.
        return { vendor_id: vendorId, methods: methods.map((method) => ({ ...method, minimum: formatCents(method.minimumCents), maximum: formatCents(method.maximumCents) })) };
      }),
    );

  program
    .command('payout:fee')
    .description("Set the account's fee_per_payout (cash and bank methods without a per-method fee)")
    .requiredOption('--vendor <id>', 'vendor id')
    .requiredOption('--amount <zar>', 'fee such as 5.00')
    .option('--reason <text>', 'why (kept in the staff audit record)')
    .action((options: { vendor: string; amount: string; reason?: string }) =>
      // With its `payout.fee_set` audit record, in one transaction.
      runCommand(async (context) => {
        const vendorId = requireUuid(options.vendor, '--vendor');
        await context.get(VendorOperations).setFeePerPayout(vendorId, parseAmount(options.amount, '--amount'), options.reason ?? null, cliActor());
        return context.get(PayoutAccountService).getAccount(vendorId);
      }),
    );
}

/**
 * Demo vendor: every method enabled, R100 000 funded, R2.50 fee per cash or bank payout. The
 * funding is above any sensible four-eyes threshold and applied by one command: demo:seed is a
 * development-only path (it refuses APP_ENV=production, demo-seed.command.ts) and still leaves the
 * `payout.funded` staff audit record, marked `demo_seed`.
 */
export const seedPayoutDemo: DemoSeedStep = async (context: INestApplicationContext, vendorId: string) => {
  await context.get(PayoutMethodsService).enableAll(vendorId);
  await context.get(PayoutAccountService).setFeePerPayout(vendorId, 250n);
  await context.get(VendorOperations).fund(vendorId, 10_000_000n, 'demo seed', DEMO_SEED_REASON, cliActor(), { demo_seed: true });
};
