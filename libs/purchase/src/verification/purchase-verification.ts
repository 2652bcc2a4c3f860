import { Injectable, Logger } from '@nestjs/common';
import type { JobPayloads } from '#queues';
import type { TransactionState } from '../model/transaction-record.js';
import { PurchaseOutcomeRecorder } from '../outcomes/purchase-outcome-recorder.js';
import { TransactionsRepository } from '../persistence/transactions.repository.js';
import { PurchaseProviderLookup } from './purchase-provider-lookup.js';
import { PurchaseTimings } from '../model/purchase-timings.js';
import { VerificationScheduler } from './verification-scheduler.js';

/**
 * What a `purchase.verify` job does: one provider GET, recorded by PurchaseOutcomeRecorder, then
 * the next check. (The worker app's VerifyPurchaseHandler delivers the job here.)
 *
 * Each transaction has one polling chain: the job whose `check` equals the row's `check_seq`
 * schedules the next one (backoff while pending, the reversal watch after completion); a chain
 * job whose `check` is behind `check_seq` was superseded and does nothing. Callback and manual
 * checks look up and record; they start a chain when none is running and take the chain over
 * when their lookup moved the status.
 */
@Injectable()
export class PurchaseVerification {
  private readonly logger = new Logger(PurchaseVerification.name);

  constructor(
    private readonly transactions: TransactionsRepository,
    private readonly lookup: PurchaseProviderLookup,
    private readonly recorder: PurchaseOutcomeRecorder,
    private readonly scheduler: VerificationScheduler,
    private readonly timings: PurchaseTimings,
  ) {}

  async verify(payload: JobPayloads['purchase.verify']): Promise<void> {
    const { transactionId, reason } = payload;
    const check = 'check' in payload ? payload.check : undefined;
    const before = await this.recorder.load(transactionId);
    if (!before) {
      this.logger.warn({ transactionId }, 'Verification job for an unknown transaction; ignored');
      return;
    }
    if (check !== undefined && check !== before.check_seq) {
      // A later check of this chain was scheduled (a callback's verification settled the
      // purchase, or the sweeper re-issued an overdue check): that job looks up, not this one.
      return;
    }
    // Callback markers received up to now are covered by this job; later ones get their own job.
    // They are consumed only once a lookup has answered (or none is needed), so a provider that
    // is unreachable now leaves them for the sweeper, and a late reversal is not lost.
    const coveredMarker = reason === 'callback' ? await this.latestOpenMarker(transactionId) : null;
    if (before.status === 'reversed') {
      // Final at both ends: nothing a lookup could change.
      await this.consumeMarkers(transactionId, coveredMarker);
      if (before.next_check_at !== null) await this.scheduler.stop(transactionId);
      return;
    }
    if (before.status === 'failed') {
      if (before.next_check_at !== null) await this.scheduler.stop(transactionId);
      // Only a hint from the provider (callback) or staff make a failed purchase worth a lookup:
      // the provider may have created it after our not-found proof (late creation).
      if (reason !== 'callback' && reason !== 'manual') return;
    } else if (before.submission_attempted_at === null && before.provider_transaction_id === null) {
      // Not submitted yet: there is nothing to verify; the submission job schedules checks.
      await this.consumeMarkers(transactionId, coveredMarker);
      return;
    }

    const observation = await this.lookup.observe(transactionId, before.provider_transaction_id);
    const after = await this.recorder.record(transactionId, observation);
    if (observation.kind !== 'unavailable') await this.consumeMarkers(transactionId, coveredMarker);
    if (before.status === 'failed') return;

    // The job that owns the chain schedules its successor. A lookup outside the chain (callback,
    // manual) that moved the status takes the chain over, so the poll still waiting for the old
    // status finds itself superseded instead of repeating the lookup; with no chain, it starts one.
    const ownsChain = check !== undefined && check === after.check_seq;
    const noChain = after.next_check_at === null;
    if (ownsChain || after.statusMoved || noChain) await this.scheduleNext(after, ownsChain || after.statusMoved);
  }

  private async latestOpenMarker(transactionId: string): Promise<string | null> {
    return this.transactions.latestOpenMarker(transactionId);
  }

  /** Marks the markers this job covered (up to `upTo`, read before the lookup) as processed. */
  private async consumeMarkers(transactionId: string, upTo: string | null): Promise<void> {
    if (upTo !== null) await this.transactions.consumeMarkers(transactionId, upTo);
  }

  private async scheduleNext(state: TransactionState, ownsChain: boolean): Promise<void> {
    const now = Date.now();
    if (state.status === 'pending') {
      if (now - new Date(state.created_at).getTime() >= this.timings.verificationWindowMs) {
        await this.recorder.moveToReview(state.id);
        return;
      }
      const nextCheck = ownsChain ? state.check_seq + 1 : 1;
      await this.scheduler.scheduleCheck(state.id, this.timings.pendingCheckDelayMs(nextCheck, state.not_found_streak), 'poll');
      return;
    }
    if (state.status === 'completed' && state.reversal_watch_until !== null) {
      const remaining = new Date(state.reversal_watch_until).getTime() - now;
      if (remaining > 0) {
        await this.scheduler.scheduleCheck(state.id, Math.min(this.timings.reversalWatchIntervalMs, remaining), 'reversal-watch');
        return;
      }
    }
    // Final, in review, or the watch is over: no further automatic checks (callbacks still trigger one).
    if (ownsChain) await this.scheduler.stop(state.id);
  }
}
