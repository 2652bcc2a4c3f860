import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JobHandlerRegistry, type JobHandler, type JobPayloads } from '#queues';
import { MetricsService } from '#observability';
import { PayoutStatusPollService, PayoutSubmissionService, pollLinkOf } from '#payout';

/**
 * `payout.batch-item`: submits one batch item, at most once. The submission marker is claimed
 * in a transaction that also schedules the item's first status poll; a job that finds the
 * marker already set (a retry after a worker died mid-call, or a duplicate) looks the payout up
 * by merchant reference instead of submitting again.
 */
@Injectable()
export class BatchItemJobHandler implements JobHandler<'payout.batch-item'>, OnModuleInit {
  private readonly logger = new Logger(BatchItemJobHandler.name);

  constructor(
    private readonly registry: JobHandlerRegistry,
    private readonly submitter: PayoutSubmissionService,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.registry.register('payout.batch-item', this);
  }

  async handle(job: Job<{ payoutId: string }>): Promise<void> {
    // The usual case first: one statement claims the item and answers it.
    const claimed = await this.submitter.claimForSubmission(job.data.payoutId);
    if (claimed) {
      await this.submitter.submitAndRecord(claimed);
      this.metrics.jobsProcessed.inc({ job: 'payout.batch-item', outcome: 'submitted' });
      return;
    }
    const payout = await this.submitter.payoutForJob(job.data.payoutId);
    if (!payout) {
      this.logger.warn({ payoutId: job.data.payoutId }, 'Batch item this database does not hold; ignored');
      this.metrics.jobsProcessed.inc({ job: 'payout.batch-item', outcome: 'ignored' });
      return;
    }
    // Not claimable: closed (cancelled, or resolved by its polls), or its marker was set before.
    if (payout.status !== 'pending') return;
    try {
      await this.submitter.lookUpAndRecord(payout);
    } catch (error) {
      // The status-poll chain scheduled with the marker resolves it anyway.
      this.logger.warn({ payoutId: payout.id, err: (error as Error).message }, 'Lookup of an already-started batch item failed');
    }
    this.metrics.jobsProcessed.inc({ job: 'payout.batch-item', outcome: 'looked_up' });
  }

  async onFinalFailure(job: Job<{ payoutId: string }>, error: Error): Promise<void> {
    // The item stays pending with its hold; the sweeper enqueues it again from PostgreSQL.
    this.logger.error({ payoutId: job.data.payoutId, err: error.message }, 'Batch item job failed for the last time; the sweeper will retry it');
    this.metrics.jobsProcessed.inc({ job: 'payout.batch-item', outcome: 'failed' });
  }
}

/** `payout.poll-status`: one link of the payout's status-poll chain (see PayoutStatusPollService). */
@Injectable()
export class PollStatusJobHandler implements JobHandler<'payout.poll-status'>, OnModuleInit {
  private readonly logger = new Logger(PollStatusJobHandler.name);

  constructor(
    private readonly registry: JobHandlerRegistry,
    private readonly poller: PayoutStatusPollService,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.registry.register('payout.poll-status', this);
  }

  async handle(job: Job<JobPayloads['payout.poll-status']>): Promise<void> {
    const link = pollLinkOf(job);
    if (link === null) {
      this.logger.warn({ jobId: job.id }, 'Status poll job without a link number; ignored');
      return;
    }
    await this.poller.poll(job.data.payoutId, link);
    this.metrics.jobsProcessed.inc({ job: 'payout.poll-status', outcome: 'done' });
  }

  async onFinalFailure(job: Job<JobPayloads['payout.poll-status']>, error: Error): Promise<void> {
    this.logger.error({ payoutId: job.data.payoutId, err: error.message }, 'Status poll failed for the last time; the sweeper will re-enqueue it');
    this.metrics.jobsProcessed.inc({ job: 'payout.poll-status', outcome: 'failed' });
  }
}
