import { Module } from '@nestjs/common';
import { WorkerQueuesModule } from '#queues';
import { WebhookWorkerModule } from '#webhooks';
import { WebhookDeliveryHandler } from './webhook-delivery.handler.js';

/** The webhook job handlers, over the webhooks lib's worker module. */
@Module({ imports: [WorkerQueuesModule, WebhookWorkerModule], providers: [WebhookDeliveryHandler] })
export class WebhookHandlersModule {}
