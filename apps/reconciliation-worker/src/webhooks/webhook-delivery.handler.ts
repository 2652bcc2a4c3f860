import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JobHandlerRegistry, type JobHandler, type JobPayloads } from '#queues';
import { WebhookDeliverer } from '#webhooks';

/** The `webhook.deliver` job: one attempt of one delivery (WebhookDeliverer holds the logic). */
@Injectable()
export class WebhookDeliveryHandler implements JobHandler<'webhook.deliver'>, OnModuleInit {
  private readonly logger = new Logger(WebhookDeliveryHandler.name);

  constructor(
    private readonly deliverer: WebhookDeliverer,
    private readonly registry: JobHandlerRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register('webhook.deliver', this);
  }

  async handle(job: Job<JobPayloads['webhook.deliver']>): Promise<void> {
    await this.deliverer.deliver(job.data.deliveryId, job.data.seq);
  }

  /** A job that failed for good (database down through all its retries): the sweeper rebuilds it from the row. */
  async onFinalFailure(job: Job<JobPayloads['webhook.deliver']>, error: Error): Promise<void> {
    this.logger.error({ deliveryId: job.data.deliveryId, err: error.message }, 'Webhook delivery job failed for good; the sweeper will rebuild it');
  }
}
