import type { EntityManager } from 'typeorm';
import { markLine, type LineLinks, type StoredLine } from './persistence/settlement.repository.js';
import type { RaiseReconciliationException, ReconciliationExceptionsService } from '#reconciliation';
import type { LineResult, SettlementProvider } from './settlement-provider.js';

// The stored line's row type and markLine (SQL) live in the settlement repository; re-exported
// here for the line matchers, which import them from this module.
export { markLine, type LineLinks, type StoredLine } from './persistence/settlement.repository.js';

/** Which report a line came from. */
export interface LineContext {
  reportId: string;
  reportDate: string;
  provider: SettlementProvider;
}

/** Raises (or joins) the exception and marks the line in one transaction. */
export async function lineException(
  manager: Pick<EntityManager, 'query'>,
  exceptions: ReconciliationExceptionsService,
  line: StoredLine,
  exception: RaiseReconciliationException,
  links: Omit<LineLinks, 'exceptionDedupeKey' | 'exceptionId'> = {},
): Promise<LineResult> {
  const { id } = await exceptions.raiseAndName(exception, manager);
  return markLine(manager, line.id, 'exception', { ...links, exceptionId: id });
}

/** The dedupe key of an exception one report line raises: the line is the observation, so a resolved exception never hides a later line. */
export function lineDedupeKey(line: Pick<StoredLine, 'id'>, kind: string): string {
  return `settlement_line:${line.id}:${kind}`;
}

/** What staff see of a line in an exception: the provider's words, never anything secret (a report has no PINs). */
export function lineEvidence(line: StoredLine): Record<string, unknown> {
  return {
    provider_reference: line.providerReference,
    merchant_reference: line.merchantReference,
    provider_amount: line.line.amount,
    provider_currency: line.currency,
    provider_status: line.line.status,
    settled_at: line.line.settled_at,
    reversed_at: line.line.reversed_at,
  };
}
