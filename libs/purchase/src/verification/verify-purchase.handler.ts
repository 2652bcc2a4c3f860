import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { JobHandlerRegistry, type JobHandler, type JobPayloads } from '#queues';
import { PurchaseOutcomeRecorder, type TransactionState } from '../outcomes/purchase-outcome-recorder.js';
import { PurchaseProviderLookup } from './purchase-provider-lookup.js';
import { PurchaseTimings } from '../model/purchase-timings.js';
import { VerificationScheduler } from './verification-scheduler.js';

type VerifyJob = Job<JobPayloads['purchase.verify']>;

/**
 * `purchase.verify`: one provider GET, recorded by PurchaseOutcomeRecorder, then the next check.
 *
 * Each transaction has one polling chain: the job whose `check` equals the row's `check_seq`
 * schedules the next one (backoff while pending, the reversal watch after completion); a chain
 * job whose `check` is behind `check_seq` was superseded and does nothing. Callback and manual
 * checks look up and record; they start a chain when none is running and take the chain over
 * when their lookup moved the status.
 */
@Injectable()
export class VerifyPurchaseHandler implements JobHandler<'purchase.verify'>, OnModuleInit {
  private readonly logger = new Logger(VerifyPurchaseHandler.name);

  constructor(
    private readonly registry: JobHandlerRegistry,
    private readonly dataSource: DataSource,
    private readonly lookup: PurchaseProviderLookup,
    private readonly recorder: PurchaseOutcomeRecorder,
    private readonly scheduler: VerificationScheduler,
    private readonly timings: PurchaseTimings,
  ) {}

  onModuleInit(): void {
    this.registry.register('purchase.verify', this);
  }

  async handle(job: VerifyJob): Promise<void> {
    const { transactionId, reason } = job.data;
    const check = 'check' in job.data ? job.data.check : undefined;
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

  async onFinalFailure(job: VerifyJob, error: Error): Promise<void> {
    // next_check_at stays set, so the sweeper re-enqueues this check.
    this.logger.error({ transactionId: job.data.transactionId, err: error.message }, 'Verification job gave up; the sweeper will retry');
  }

  private async latestOpenMarker(transactionId: string): Promise<string | null> {
    const [row] = await this.dataSource.query(`SELECT max(id) AS id FROM purchase_callback_markers WHERE transaction_id = $1 AND processed_at IS NULL`, [
      transactionId,
    ]);
    return row?.id ?? null;
  }

  /** Marks the markers this job covered (up to `upTo`, read before the lookup) as processed. */
  private async consumeMarkers(transactionId: string, upTo: string | null): Promise<void> {
    if (upTo === null) return;
    await this.dataSource.query(`UPDATE purchase_callback_markers SET processed_at = now() WHERE transaction_id = $1 AND id <= $2 AND processed_at IS NULL`, [
      transactionId,
      upTo,
    ]);
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
