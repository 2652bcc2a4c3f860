import type { INestApplicationContext } from '@nestjs/common';
import type { Command } from 'commander';
import { parseZarAmount2dp, type Cents } from '#money';
import { PayoutAccountService, PayoutLedger, PayoutMethodsService } from '#payout';
import { OpsInputError, requireUuid, runCommand, splitList } from '../ops-context.js';
import type { DemoSeedStep } from './demo-seed.command.js';

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

export function registerPayoutCommands(program: Command): void {
  program
    .command('payout:fund')
    .description('Credit the prefunded payout account (a ledger fund entry)')
    .requiredOption('--vendor <id>', 'vendor id')
    .requiredOption('--amount <zar>', 'amount such as 1000.00')
    .option('--note <text>', 'why the funds arrived (bank reference)')
    .action((options: { vendor: string; amount: string; note?: string }) =>
      runCommand((context) => context.get(PayoutLedger).fund(requireUuid(options.vendor, '--vendor'), parseAmount(options.amount, '--amount'), options.note ?? null)),
    );

  program
    .command('payout:methods')
    .description('Enable or disable payout methods and set per-method vendor fees')
    .requiredOption('--vendor <id>', 'vendor id')
    .option('--enable <list>', 'methods to enable')
    .option('--disable <list>', 'methods to disable')
    .option('--fee <method=amount>', 'per-method vendor fee (repeatable)', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .action((options: { vendor: string; enable?: string; disable?: string; fee: string[] }) =>
      runCommand(async (context) => {
        const vendorId = requireUuid(options.vendor, '--vendor');
        const methods = await context.get(PayoutMethodsService).configure(vendorId, {
          enable: splitList(options.enable),
          disable: splitList(options.disable),
          fees: parseFees(options.fee),
        });
        return { vendor_id: vendorId, methods };
      }),
    );

  program
    .command('payout:fee')
    .description("Set the account's fee_per_payout (cash and bank methods without a per-method fee)")
    .requiredOption('--vendor <id>', 'vendor id')
    .requiredOption('--amount <zar>', 'fee such as 5.00')
    .action((options: { vendor: string; amount: string }) =>
      runCommand((context) => context.get(PayoutAccountService).setFeePerPayout(requireUuid(options.vendor, '--vendor'), parseAmount(options.amount, '--amount'))),
    );
}

/** Demo vendor: every method enabled, R100 000 funded, R2.50 fee per cash or bank payout. */
export const seedPayoutDemo: DemoSeedStep = async (context: INestApplicationContext, vendorId: string) => {
  await context.get(PayoutMethodsService).enableAll(vendorId);
  await context.get(PayoutAccountService).setFeePerPayout(vendorId, 250n);
  await context.get(PayoutLedger).fund(vendorId, 10_000_000n, 'demo seed');
};
