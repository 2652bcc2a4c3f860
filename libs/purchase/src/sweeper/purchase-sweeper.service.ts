import { Injectable } from '@nestjs/common';
import { jobSpec, QueueProducer, queueOf, SweeperService, type JobSpec } from '#queues';
import { MAX_VELOCITY_WINDOW_SECONDS } from '../admission/purchase-spend-controls.service.js';
import { SpendControlsRepository } from '../persistence/spend-controls.repository.js';
import { TransactionWorkRepository } from '../persistence/transaction-work.repository.js';
import { PurchaseTimings } from '../model/purchase-timings.js';

const BATCH = 100;
/** A job that keeps failing for good is not retried without bound: staff see the failures. */
const MAX_FAILED_HOPS = 20;

/**
 * Rebuilds lost queue work from PostgreSQL (Redis may delay work, never lose it): admitted
 * purchases left unclaimed for submission (PurchaseSubmissionClaimsService leaves alone those admitted
 * longer than the verification window ago, and claims nothing while the provider is unreachable)
 * get their job again, past any job that finished or failed for good (rebuild()). All jobs are
 * idempotent, so a sweep that races the normal path changes nothing. The polling chain and the
 * callback markers need no sweep: they are claimed from PostgreSQL when due, leased, and claimed
 * again when a lease runs out (PurchaseCheckClaimsService, PurchaseCallbackClaimsService). It also drops velocity counters older than the longest window spend
 * controls accept.
 */
@Injectable()
export class PurchaseSweeperService extends SweeperService {
  constructor(
    private readonly transactions: TransactionWorkRepository,
    private readonly spendControls: SpendControlsRepository,
    private readonly producer: QueueProducer,
    private readonly timings: PurchaseTimings,
  ) {
    super(PurchaseSweeperService.name, 'Purchase sweep', () => timings.sweepIntervalMs);
  }

  /** One sweep; returns how many jobs it re-enqueued. */
  override async sweep(): Promise<{ submissions: number }> {
    const slackSeconds = (2 * this.timings.sweepIntervalMs) / 1000;

    const unsubmitted = await this.transactions.unsubmitted(slackSeconds, BATCH);
    for (const transactionId of unsubmitted) await this.rebuild(jobSpec('purchase.submit', { transactionId }));

    // Velocity counters older than the longest window spend controls accept.
    await this.spendControls.pruneVelocityBuckets(MAX_VELOCITY_WINDOW_SECONDS + 60);

    const counts = { submissions: unsubmitted.length };
    if (unsubmitted.length > 0) this.logger.warn(counts, 'Re-enqueued purchase work from PostgreSQL');
    return counts;
  }

  /**
   * Adds the job under `baseId` unless a job that will still run (waiting, delayed, active) holds
   * that id: then it does the work and this rebuild collapses into it. BullMQ ignores an add under
   * the id of a finished job it keeps, so a finished one must not block the rebuild: a completed
   * job (kept an hour, nothing to inspect) is removed and the id reused; a failed job (kept a
   * week for staff) is stepped over to `<baseId>.after.<its finish time>`, which is the same id
   * in every sweep, so that successor collapses duplicates in turn.
   */
  private async rebuild(base: JobSpec): Promise<void> {
    const queue = this.producer.queue(queueOf(base.name));
    let spec = base;
    for (let hop = 0; hop < MAX_FAILED_HOPS; hop++) {
      const job = await queue.getJob(spec.id);
      const state = job ? await job.getState() : 'unknown';
      if (!job || state === 'unknown') {
        await this.producer.add(spec);
        return;
      }
      if (state === 'completed') {
        await job.remove();
        await this.producer.add(spec);
        return;
      }
      if (state !== 'failed') return;
      spec = { ...spec, id: `${spec.id}.after.${job.finishedOn ?? job.timestamp}` };
    }
    this.logger.error({ jobId: base.id }, 'Job failed for good too many times in a row; not rebuilt until the failures age out');
  }
}
