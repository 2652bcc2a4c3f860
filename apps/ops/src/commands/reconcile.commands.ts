import type { Command } from 'commander';
import { parseIsoDay } from '#common';
import { ReconciliationExceptionsRepository } from '#reconciliation';
import { isSettlementProvider, SETTLEMENT_PROVIDERS, SettlementIngestor, SettlementReportService, type SettlementProvider } from '#settlement';
import { OpsInputError, requireUuid, runCommand } from '../ops-context.js';

function requireDay(value: string): string {
  try {
    return parseIsoDay(value);
  } catch {
    throw new OpsInputError('--date must be a calendar day YYYY-MM-DD');
  }
}

function requireProviders(value: string | undefined): readonly SettlementProvider[] {
  if (value === undefined) return SETTLEMENT_PROVIDERS;
  if (!isSettlementProvider(value)) throw new OpsInputError(`--provider must be one of ${SETTLEMENT_PROVIDERS.join(', ')}`);
  return [value];
}

export function registerReconcileCommands(program: Command): void {
  program
    .command('reconcile:run')
    .description("Ingest and match the providers' settlement reports of one Johannesburg day (idempotent)")
    .requiredOption('--date <YYYY-MM-DD>', 'report day (Africa/Johannesburg)')
    .option('--provider <name>', `one of ${SETTLEMENT_PROVIDERS.join(', ')} (default: all)`)
    .action((options: { date: string; provider?: string }) =>
      runCommand(async (context) => {
        const day = requireDay(options.date);
        const outcomes = await context.get(SettlementIngestor).ingestDay(day, requireProviders(options.provider));
        const failed = outcomes.filter((outcome) => 'error' in outcome);
        // Every provider is tried; any failure still makes the exit non-zero, with the details on stderr.
        if (failed.length > 0) throw new OpsInputError(`settlement report ingestion failed: ${failed.map((outcome) => `${outcome.provider}: ${'error' in outcome ? outcome.error : ''}`).join('; ')}`);
        return { report_date: day, providers: outcomes };
      }),
    );

  program
    .command('reconcile:report')
    .description("One day's settlement reports: lines by result, exceptions by kind, and every open exception")
    .requiredOption('--date <YYYY-MM-DD>', 'report day (Africa/Johannesburg)')
    .action((options: { date: string }) => runCommand((context) => context.get(SettlementReportService).reportFor(requireDay(options.date))));

  program
    .command('reconcile:resolve')
    .description('Close an open reconciliation exception with what was done about it')
    .requiredOption('--id <id>', 'exception id')
    .requiredOption('--by <name>', 'who resolved it')
    .requiredOption('--note <text>', 'what was done (refund, re-credit, provider ticket…)')
    .action((options: { id: string; by: string; note: string }) =>
      runCommand(async (context) => {
        const id = requireUuid(options.id, '--id');
        if (options.by.trim() === '' || options.note.trim() === '') throw new OpsInputError('--by and --note must not be empty');
        const resolved = await context.get(ReconciliationExceptionsRepository).resolve(id, options.by.trim(), options.note.trim());
        if (!resolved) throw new OpsInputError(`no open exception ${id}`);
        return { id, status: 'resolved', resolved_by: options.by.trim(), resolution: options.note.trim() };
      }),
    );
}
