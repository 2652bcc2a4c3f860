import type { EntityManager } from 'typeorm';
import type { RaiseReconciliationException, ReconciliationExceptionsRepository } from '#reconciliation';
import type { LineResult, SettlementProvider } from './settlement-provider.js';

/** A settlement line as stored, waiting to be matched. */
export interface StoredLine {
  id: string;
  provider_reference: string;
  merchant_reference: string;
  amount_cents: string;
  currency: string;
  status: 'settled' | 'reversed';
  line: { status: string; amount: string; settled_at: string; reversed_at: string | null };
}

export const STORED_LINE_COLUMNS = `id, provider_reference, merchant_reference, amount_cents::text AS amount_cents, currency, status, line`;

/** Which report a line came from. */
export interface LineContext {
  reportId: string;
  reportDate: string;
  provider: SettlementProvider;
}

export interface LineLinks {
  purchaseTransactionId?: string | null;
  payoutId?: string | null;
  /** The exception this line raised or joined (looked up by key, so one raised earlier by a callback counts). */
  exceptionDedupeKey?: string | null;
}

/** Writes the line's result; only a line not yet matched changes, so a re-run cannot rewrite history. */
export async function markLine(manager: Pick<EntityManager, 'query'>, lineId: string, result: LineResult, links: LineLinks): Promise<LineResult> {
  await manager.query(
    `UPDATE settlement_lines SET match_result = $2, matched_at = now(), purchase_transaction_id = $3, payout_id = $4,
            exception_id = (SELECT id FROM reconciliation_exceptions WHERE dedupe_key = $5)
      WHERE id = $1 AND match_result IS NULL`,
    [lineId, result, links.purchaseTransactionId ?? null, links.payoutId ?? null, links.exceptionDedupeKey ?? null],
  );
  return result;
}

/** Raises (or joins) the exception and marks the line in one transaction. */
export async function lineException(
  manager: Pick<EntityManager, 'query'>,
  exceptions: ReconciliationExceptionsRepository,
  line: StoredLine,
  exception: RaiseReconciliationException,
  links: Omit<LineLinks, 'exceptionDedupeKey'> = {},
): Promise<LineResult> {
  await exceptions.raise(exception, manager);
  return markLine(manager, line.id, 'exception', { ...links, exceptionDedupeKey: exception.dedupeKey });
}

/** What staff see of a line in an exception: the provider's words, never anything secret (a report has no PINs). */
export function lineEvidence(line: StoredLine): Record<string, unknown> {
  return {
    provider_reference: line.provider_reference,
    merchant_reference: line.merchant_reference,
    provider_amount: line.line.amount,
    provider_currency: line.currency,
    provider_status: line.line.status,
    settled_at: line.line.settled_at,
    reversed_at: line.line.reversed_at,
  };
}
