import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Job } from 'bullmq';
import { PurchaseSubmissionService, PurchaseVerificationService } from '#purchase';
import { JobHandlerRegistry, type JobHandler, type JobPayloads } from '#queues';

/** `purchase.submit`: delivered to PurchaseSubmissionService, which sends a purchase to the provider at most once. */
@Injectable()
export class SubmitPurchaseHandler implements JobHandler<'purchase.submit'>, OnModuleInit {
  private readonly logger = new Logger(SubmitPurchaseHandler.name);

  constructor(
    private readonly registry: JobHandlerRegistry,
    private readonly submission: PurchaseSubmissionService,
  ) {}

  onModuleInit(): void {
    this.registry.register('purchase.submit', this);
  }

  async handle(job: Job<JobPayloads['purchase.submit']>): Promise<void> {
    await this.submission.submit(job.data.transactionId);
  }

  async onFinalFailure(job: Job<JobPayloads['purchase.submit']>, error: Error): Promise<void> {
    // The transaction stays pending; the sweeper re-enqueues its submission from PostgreSQL.
    this.logger.error({ transactionId: job.data.transactionId, err: error.message }, 'Submission job gave up; the sweeper will retry');
  }
}

/** `purchase.verify`: delivered to PurchaseVerificationService (one provider lookup, recorded, then the next check). */
@Injectable()
export class VerifyPurchaseHandler implements JobHandler<'purchase.verify'>, OnModuleInit {
  private readonly logger = new Logger(VerifyPurchaseHandler.name);

  constructor(
    private readonly registry: JobHandlerRegistry,
    private readonly verification: PurchaseVerificationService,
  ) {}

  onModuleInit(): void {
    this.registry.register('purchase.verify', this);
  }

  async handle(job: Job<JobPayloads['purchase.verify']>): Promise<void> {
    await this.verification.verify(job.data);
  }

  async onFinalFailure(job: Job<JobPayloads['purchase.verify']>, error: Error): Promise<void> {
    // next_check_at stays set, so the sweeper re-enqueues this check.
    this.logger.error({ transactionId: job.data.transactionId, err: error.message }, 'Verification job gave up; the sweeper will retry');
  }
}
