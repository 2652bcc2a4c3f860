import type { Command } from 'commander';
import { parseIsoDay } from '#common';
import { EXCEPTION_RESOLUTION_KINDS, isExceptionResolutionKind } from '#reconciliation';
import { isSettlementProvider, SETTLEMENT_PROVIDERS, SettlementIngestor, SettlementReportService, type SettlementProvider } from '#settlement';
import { EXCEPTION_SUBJECT, ExceptionDesk } from '#staff';
import { cliActor } from '../cli-actor.js';
import { BACK_OFFICE_URL, cliProposer, printableOutcome, type ProposerOptions } from '../four-eyes-proposer.js';
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
    .description(
      'Resolve an open reconciliation exception as a proven staff account, through the back-office\'s own service: no_money_moves and record_corrected close it; ' +
        'ledger_adjustment, recovered_from_vendor and repaid_to_vendor only write a four-eyes proposal that another approver approves in the back-office',
    )
    .requiredOption('--id <id>', 'exception id')
    .requiredOption('--resolution <kind>', EXCEPTION_RESOLUTION_KINDS.join(', '))
    .requiredOption('--note <text>', 'why: what was found and done (provider ticket, what the vendor agreed); at least 10 characters')
    .option('--direction <debit|credit>', 'ledger_adjustment only: debit (take from the vendor) or credit (give to the vendor)')
    .option('--amount <zar>', 'money resolutions only: the amount, e.g. 150.00')
    .option('--proposer <email>', 'your staff account, which resolves (or proposes) it')
    .option('--code <totp>', "your staff account's current authenticator code (used once)")
    .option('--back-office-url <url>', 'the back-office address printed for the approver', BACK_OFFICE_URL)
    .action((options: { id: string; resolution: string; note: string; direction?: string; amount?: string } & ProposerOptions) =>
      runCommand(async (context) => {
        const id = requireUuid(options.id, '--id');
        if (!isExceptionResolutionKind(options.resolution)) throw new OpsInputError(`--resolution must be one of ${EXCEPTION_RESOLUTION_KINDS.join(', ')}`);
        const desk = context.get(ExceptionDesk);
        const exception = await desk.get(id);
        // Every resolution names a person, proven like a sign-in: the resolver's staff account (or the proposer's, for money).
        const staff = await cliProposer(context, options, {
          command: 'reconcile:resolve',
          vendorId: exception.vendorId,
          subjectType: EXCEPTION_SUBJECT,
          subjectId: exception.id,
          needed: 'resolving an exception names the staff member who resolves it',
        })();
        const request = { resolution: options.resolution, reason: options.note, direction: options.direction, amount: options.amount };
        const outcome = await desk.resolve(exception.id, request, staff, { via: 'ops', ops_actor: cliActor().label });
        if (!outcome.resolved) return printableOutcome(context, { applied: false, proposal: outcome.proposal }, options.backOfficeUrl);
        const resolved = outcome.exception;
        return { id: resolved.id, status: resolved.status, resolution_kind: resolved.resolutionKind, resolved_by: resolved.resolvedBy, resolution: resolved.resolution };
      }),
    );
}
