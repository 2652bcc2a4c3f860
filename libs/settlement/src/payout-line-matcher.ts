import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { formatCents } from '#money';
import { PayoutOutcomes, PayoutRepository, methodDefinition } from '#payout';
import type { PayoutProviderPayment } from '#providers';
import { ReconciliationExceptionsRepository, type RaiseReconciliationException } from '#reconciliation';
import type { LineResult } from './settlement-provider.js';
import { lineEvidence, lineException, markLine, type LineContext, type StoredLine } from './stored-line.js';

/**
 * Matches one payout-provider settlement line (docs/RECONCILIATION.md, "Matching rules"), under
 * the payout's row lock and in one transaction with its ledger movement and the line's result:
 * a crash leaves either both or neither, and a re-run finds the payout already moved and the
 * line `matched`. Compared: amount (without our fee, which the provider never sees), currency
 * and the provider reference once we hold one. Moves go through PayoutOutcomes, the same path as
 * a status poll, so a reversal returns amount + fee exactly once (the ledger's unique index
 * holds one `reverse` entry per payout).
 */
@Injectable()
export class PayoutLineMatcher {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outcomes: PayoutOutcomes,
    private readonly payouts: PayoutRepository,
    private readonly exceptions: ReconciliationExceptionsRepository,
  ) {}

  async match(context: LineContext, line: StoredLine): Promise<LineResult> {
    const found = await this.payouts.findByMerchantReference(line.merchant_reference);
    const base = { domain: 'payout' as const, provider: context.provider, reportDate: context.reportDate };
    return this.dataSource.transaction(async (manager) => {
      const payout = found && methodDefinition(found.method).channel === context.provider ? await this.payouts.findForWorker(found.id, manager, true) : null;
      const raise = (exception: RaiseReconciliationException, links = {}) => lineException(manager, this.exceptions, line, exception, links);
      if (!payout) {
        const dedupeKey = `settlement:${context.provider}:${line.provider_reference}:unknown_line`;
        return raise({ ...base, kind: 'unknown_line', dedupeKey, details: lineEvidence(line) });
      }
      const links = { payoutId: payout.id };
      const ours = { vendorId: payout.vendorId, payoutId: payout.id };
      const evidence = { ...lineEvidence(line), our_status: payout.status, our_amount: formatCents(payout.amountCents), our_currency: payout.currency };

      if (payout.amountCents !== BigInt(line.amount_cents) || payout.currency !== line.currency) {
        return raise({ ...base, ...ours, kind: 'amount_mismatch', dedupeKey: `payout:${payout.id}:amount_mismatch`, details: evidence }, links);
      }
      if (payout.providerReference !== null && payout.providerReference !== line.provider_reference) {
        const details = { ...evidence, our_provider_reference: payout.providerReference };
        return raise({ ...base, ...ours, kind: 'reference_mismatch', dedupeKey: `payout:${payout.id}:reference_mismatch`, details }, links);
      }
      const wanted = line.status === 'reversed' ? 'reversed' : 'paid';
      if (payout.status === wanted || (payout.status === 'reversed' && wanted === 'paid')) return markLine(manager, line.id, 'matched', links);
      if (payout.status === 'failed' || payout.status === 'cancelled') {
        // We released the hold; the provider says it paid. Never re-settled automatically: staff recover the money.
        return raise({ ...base, ...ours, kind: 'status_conflict', dedupeKey: `payout:${payout.id}:status_conflict`, details: evidence }, links);
      }
      // pending / needs_review (paid or paid-and-reversed), or paid and now reversed.
      const after = await this.outcomes.applyToLocked(manager, payout, paymentOf(line, wanted), false);
      return markLine(manager, line.id, after.status === wanted ? 'applied' : 'matched', links);
    });
  }
}

/** The line as a provider answer; it carries no delivery (a report never has PINs), which a later poll may still bring. */
function paymentOf(line: StoredLine, outcome: 'paid' | 'reversed'): PayoutProviderPayment {
  return {
    outcome,
    found: true,
    merchantReference: line.merchant_reference,
    providerStatus: line.line.status,
    providerReference: line.provider_reference,
    amount: line.line.amount,
    rejectionReason: null,
    paidAt: line.line.settled_at,
    reversedAt: line.line.reversed_at,
    delivery: null,
    replayed: false,
  };
}
