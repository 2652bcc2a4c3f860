import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { formatCents } from '#money';
import { ProviderError, PurchaseProviderClient, type PurchaseProviderTransaction } from '#providers';
import { PurchaseOutcomesService, PurchaseSettlementService, isUuid, lateCreationDedupeKey, type TransactionRecord } from '#purchase';
import { ReconciliationExceptionsService, type RaiseReconciliationException } from '#reconciliation';
import type { LineResult } from './settlement-provider.js';
import { SettlementRepository } from './persistence/settlement.repository.js';
import { lineDedupeKey, lineEvidence, lineException, markLine, type LineContext, type StoredLine } from './stored-line.js';

/**
 * Matches one purchase-provider settlement line (docs/RECONCILIATION.md, "Matching rules").
 * Our transaction id is the provider's external id. Compared: the settled (wholesale) amount and
 * currency, and the provider's transaction id once we hold one. A line moves a transaction only
 * through PurchaseOutcomesService, the same path as a verified lookup, and only forward: a failed
 * purchase the provider says it created becomes a `late_creation` exception and stays failed.
 */
@Injectable()
export class PurchaseLineMatcher {
  private readonly logger = new Logger(PurchaseLineMatcher.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly recorder: PurchaseOutcomesService,
    private readonly provider: PurchaseProviderClient,
    private readonly exceptions: ReconciliationExceptionsService,
    private readonly purchases: PurchaseSettlementService,
    private readonly settlements: SettlementRepository,
  ) {}

  async match(context: LineContext, line: StoredLine): Promise<LineResult> {
    const record = await this.find(line);
    const manager = this.dataSource.manager;
    const base = { domain: 'purchase' as const, provider: context.provider, reportDate: context.reportDate };
    // Each exception is raised, and the line marked, in one transaction of its own.
    const raise = (exception: RaiseReconciliationException, links = {}) =>
      this.dataSource.transaction((tx) => lineException(tx, this.exceptions, line, exception, links));
    if (!record) return raise({ ...base, kind: 'unknown_line', dedupeKey: lineDedupeKey(line, 'unknown_line'), details: lineEvidence(line) });
    const links = { purchaseTransactionId: record.id };
    const ours = { vendorId: record.vendorId, purchaseTransactionId: record.id };
    const evidence = { ...lineEvidence(line), our_status: record.status, our_amount: formatCents(record.wholesaleCents), our_currency: record.currency };

    if (record.wholesaleCents !== BigInt(line.amountCents) || record.currency !== line.currency) {
      return raise({ ...base, ...ours, kind: 'amount_mismatch', dedupeKey: lineDedupeKey(line, 'amount_mismatch'), details: evidence }, links);
    }
    if (!/^\d{1,18}$/.test(line.providerReference) || (record.providerTransactionId !== null && record.providerTransactionId !== line.providerReference)) {
      const details = { ...evidence, our_provider_transaction_id: record.providerTransactionId };
      return raise({ ...base, ...ours, kind: 'reference_mismatch', dedupeKey: lineDedupeKey(line, 'reference_mismatch'), details }, links);
    }
    const earlier = await this.settlements.earlierLineFor(manager, { purchaseTransactionId: record.id }, line);
    if (earlier) {
      // The provider settled (or reversed) this purchase twice on its reports: nothing moves twice, staff ask why.
      return raise({ ...base, ...ours, kind: 'duplicate_line', dedupeKey: lineDedupeKey(line, 'duplicate_line'), details: { ...evidence, earlier_line: earlier } }, links);
    }
    if (record.status === 'failed') {
      // The purchase domain's one rule for a late creation (the same as for a callback): it stays failed, staff decide.
      return this.dataSource.transaction(async (tx) => {
        await this.recorder.recordLateCreation(
          record.id,
          {
            source: 'settlement_report',
            providerTransactionId: line.providerReference,
            providerStatus: line.line.status,
            wholesaleAmount: formatCents(BigInt(line.amountCents)),
            wholesaleCurrency: line.currency,
            reportDate: context.reportDate,
          },
          tx,
        );
        return markLine(tx, line.id, 'exception', { ...links, exceptionDedupeKey: lateCreationDedupeKey(record.id) });
      });
    }

    const wanted = line.status === 'reversed' ? 'reversed' : 'completed';
    if (record.status === wanted || (record.status === 'reversed' && wanted === 'completed')) return markLine(manager, line.id, 'matched', links);

    // Pending, review, or completed and now reversed: the report proves the outcome; record it as a verified one.
    const recorded = await this.recorder.record(record.id, { kind: 'found', transaction: await this.observationOf(record, line, wanted) });
    if (recorded.status === wanted) return markLine(manager, line.id, recorded.statusMoved ? 'applied' : 'matched', links);
    // Unreachable with the allowed moves (pending/review/completed all lead to `wanted`); kept so an oddity reaches staff, not silence.
    const details = { ...evidence, our_status: recorded.status };
    return raise({ ...base, ...ours, kind: 'status_conflict', dedupeKey: lineDedupeKey(line, 'status_conflict'), details }, links);
  }

  private async find(line: StoredLine): Promise<TransactionRecord | undefined> {
    if (isUuid(line.merchantReference)) {
      const byId = await this.purchases.record(line.merchantReference);
      if (byId) return byId;
    }
    if (!/^\d{1,18}$/.test(line.providerReference)) return undefined;
    return this.purchases.recordByProviderTransactionId(line.providerReference);
  }

  /**
   * The line as a provider observation. A lookup is tried first because it carries what a report
   * never does (the PIN or eSIM of a completed purchase); it is used only when it says the same.
   */
  private async observationOf(record: TransactionRecord, line: StoredLine, wanted: 'completed' | 'reversed'): Promise<PurchaseProviderTransaction> {
    try {
      const found = await this.provider.findTransactionByExternalId(record.id);
      if (found.outcome === wanted && found.externalId === record.id) return found;
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      this.logger.warn({ transactionId: record.id, code: error.code }, 'Lookup beside a settlement line failed; the line alone is recorded');
    }
    return {
      outcome: wanted,
      providerTransactionId: Number(line.providerReference),
      externalId: record.id,
      providerStatus: line.line.status,
      productId: record.productId,
      destinationAmount: record.destinationAmount,
      destinationUnit: record.destinationUnit,
      wholesaleAmount: line.line.amount,
      wholesaleCurrency: line.currency,
      createdAt: line.line.settled_at,
      completedAt: line.line.settled_at,
      reversedAt: line.line.reversed_at,
      fulfilment: null,
    };
  }
}
