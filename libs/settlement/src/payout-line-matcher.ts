import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { formatCents } from '#money';
import { PayoutOutcomesService, PayoutSettlementService, methodDefinition } from '#payout';
import type { PayoutProviderPayment } from '#providers';
import { ReconciliationExceptionsService, type RaiseReconciliationException } from '#reconciliation';
import type { LineResult } from './settlement-provider.js';
import { SettlementRepository } from './persistence/settlement.repository.js';
import { lineDedupeKey, lineEvidence, lineException, markLine, type LineContext, type StoredLine } from './stored-line.js';

/**
 * Matches one payout-provider settlement line (docs/RECONCILIATION.md, "Matching rules"), under
 * the payout's row lock and in one transaction with its ledger movement and the line's result:
 * a crash leaves either both or neither, and a re-run finds the payout already moved and the
 * line `matched`. Compared: amount (without our fee, which the provider never sees), currency
 * and the provider reference once we hold one; a second settling (or reversing) line for one
 * payout is a `duplicate_line`. Moves go through PayoutOutcomesService, the same path as a status poll,
 * so a reversal returns amount + fee exactly once (the ledger's unique index holds one `reverse`
 * entry per payout), and a payout we released that a line proves paid is re-debited once (one
 * `resettle`). Each exception a line raises is keyed by the line: its own observation.
 */
@Injectable()
export class PayoutLineMatcher {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outcomes: PayoutOutcomesService,
    private readonly payouts: PayoutSettlementService,
    private readonly exceptions: ReconciliationExceptionsService,
    private readonly settlements: SettlementRepository,
  ) {}

  async match(context: LineContext, line: StoredLine): Promise<LineResult> {
    const found = await this.payouts.findByMerchantReference(line.merchantReference);
    const base = { domain: 'payout' as const, provider: context.provider, reportDate: context.reportDate };
    return this.dataSource.transaction(async (manager) => {
      const payout = found && methodDefinition(found.method).channel === context.provider ? await this.payouts.lockForLine(manager, found.id) : null;
      const raise = (exception: RaiseReconciliationException, links = {}) => lineException(manager, this.exceptions, line, exception, links);
      if (!payout) return raise({ ...base, kind: 'unknown_line', dedupeKey: lineDedupeKey(line, 'unknown_line'), details: lineEvidence(line) });
      const links = { payoutId: payout.id };
      const ours = { vendorId: payout.vendorId, payoutId: payout.id };
      const evidence = { ...lineEvidence(line), our_status: payout.status, our_amount: formatCents(payout.amountCents), our_currency: payout.currency };

      if (payout.amountCents !== BigInt(line.amountCents) || payout.currency !== line.currency) {
        return raise({ ...base, ...ours, kind: 'amount_mismatch', dedupeKey: lineDedupeKey(line, 'amount_mismatch'), details: evidence }, links);
      }
      if (payout.providerReference !== null && payout.providerReference !== line.providerReference) {
        const details = { ...evidence, our_provider_reference: payout.providerReference };
        return raise({ ...base, ...ours, kind: 'reference_mismatch', dedupeKey: lineDedupeKey(line, 'reference_mismatch'), details }, links);
      }
      // Read under the payout's row lock: a line for it matched by a concurrent ingestion has committed.
      const earlier = await this.settlements.earlierLineFor(manager, { payoutId: payout.id }, line);
      if (earlier) {
        // The provider settled (or reversed) this record twice on its reports: nothing moves twice, staff ask why.
        const details = { ...evidence, earlier_line: earlier };
        return raise({ ...base, ...ours, kind: 'duplicate_line', dedupeKey: lineDedupeKey(line, 'duplicate_line'), details }, links);
      }
      const wanted = line.status === 'reversed' ? 'reversed' : 'paid';
      if (payout.status === wanted || (payout.status === 'reversed' && wanted === 'paid')) return markLine(manager, line.id, 'matched', links);
      if (payout.status === 'cancelled') {
        // Cancelled before any provider had it: a line for it is the provider's error, for staff.
        return raise({ ...base, ...ours, kind: 'status_conflict', dedupeKey: lineDedupeKey(line, 'status_conflict'), details: evidence }, links);
      }
      // pending / needs_review (paid or paid-and-reversed), paid and now reversed, or failed (released)
      // and proved paid after all: the books follow the provider's proof (a resettle entry, an exception).
      const observation = { via: 'settlement_report' as const, provider: context.provider, reportDate: context.reportDate, details: { ...evidence, settlement_line_id: line.id } };
      const after = await this.outcomes.applyToLocked(manager, payout, paymentOf(line, wanted), false, observation);
      return markLine(manager, line.id, after.status === wanted ? 'applied' : 'matched', links);
    });
  }
}

/** The line as a provider answer; it carries no delivery (a report never has PINs), which a later poll may still bring. */
function paymentOf(line: StoredLine, outcome: 'paid' | 'reversed'): PayoutProviderPayment {
  return {
    outcome,
    found: true,
    merchantReference: line.merchantReference,
    providerStatus: line.line.status,
    providerReference: line.providerReference,
    amount: line.line.amount,
    rejectionReason: null,
    paidAt: line.line.settled_at,
    reversedAt: line.line.reversed_at,
    delivery: null,
    replayed: false,
  };
}
