import type { Command } from 'commander';
import { parseIsoDay } from '#common';
import { isSettlementProvider, SETTLEMENT_PROVIDERS, SettlementCloseStatus, SettlementDayCloser } from '#settlement';
import { OpsInputError, runCommand } from '../ops-context.js';

function optionalDay(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return parseIsoDay(value);
  } catch {
    throw new OpsInputError('--date must be a calendar day YYYY-MM-DD');
  }
}

function optionalProvider(value: string | undefined): string | undefined {
  if (value !== undefined && !isSettlementProvider(value)) throw new OpsInputError(`--provider must be one of ${SETTLEMENT_PROVIDERS.join(', ')}`);
  return value;
}

/** The close of the provider-days (docs/RECONCILIATION.md, "Closing a day"). */
export function registerCloseCommands(program: Command): void {
  program
    .command('close:status')
    .description('Provider-days not closed (and those closed in the last 7 days), with what blocks each: report missing, unmatched lines, open exceptions')
    .option('--date <YYYY-MM-DD>', 'one report day (Africa/Johannesburg), closed or not')
    .option('--provider <name>', `one of ${SETTLEMENT_PROVIDERS.join(', ')}`)
    .action((options: { date?: string; provider?: string }) =>
      runCommand(async (context) => {
        const days = await context.get(SettlementCloseStatus).list({ day: optionalDay(options.date), provider: optionalProvider(options.provider) });
        return { days, blocked: days.filter((day) => day.blocked).length, closed: days.filter((day) => day.status === 'closed').length };
      }),
    );

  program
    .command('close:run')
    .description('Close every fetched provider-day that nothing blocks now (the worker does it after each scheduled ingestion)')
    .action(() => runCommand(async (context) => ({ outcomes: await context.get(SettlementDayCloser).closeReady() })));
}
