import { Module } from '@nestjs/common';
import { FieldEncryption } from '#common';
import { WorkerQueuesModule } from '#queues';
import { WebhookDeliveryHandler } from './webhook-delivery.handler.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { WebhookSweeper } from './webhook-sweeper.js';

/** The endpoints API's service, for both gateways (needs ConfigModule and the TypeORM connection). */
@Module({ providers: [FieldEncryption, WebhookEndpointsService], exports: [WebhookEndpointsService] })
export class WebhookEndpointsModule {}

/** Delivery worker: the job handler and the sweeper. */
@Module({ imports: [WorkerQueuesModule], providers: [FieldEncryption, WebhookDeliveryHandler, WebhookSweeper], exports: [WebhookDeliveryHandler, WebhookSweeper] })
export class WebhookWorkerModule {}
