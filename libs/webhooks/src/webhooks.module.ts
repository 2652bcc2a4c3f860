import { Module } from '@nestjs/common';
import { FieldEncryption } from '#common';
import { WorkerQueuesModule } from '#queues';
import { WebhookDeliveryRepository } from './persistence/webhook-delivery.repository.js';
import { WebhookEndpointRepository } from './persistence/webhook-endpoint.repository.js';
import { WebhookDeliverer } from './webhook-deliverer.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { WebhookSweeper } from './webhook-sweeper.js';
import { systemHostResolver, WEBHOOK_HOST_RESOLVER } from './webhook-url-guard.js';

/** The system resolver; tests replace it (overrideProvider) to make a name resolve where they need. */
const HOST_RESOLVER = { provide: WEBHOOK_HOST_RESOLVER, useValue: systemHostResolver };

/** The endpoints API's service, for both gateways (needs ConfigModule and the TypeORM connection). */
@Module({ providers: [FieldEncryption, WebhookEndpointRepository, WebhookDeliveryRepository, WebhookEndpointsService, HOST_RESOLVER], exports: [WebhookEndpointsService] })
export class WebhookEndpointsModule {}

/** Delivery worker: the deliverer its job handler (in the worker app) calls, and the sweeper. */
@Module({
  imports: [WorkerQueuesModule],
  providers: [FieldEncryption, WebhookDeliveryRepository, WebhookDeliverer, WebhookSweeper, HOST_RESOLVER],
  exports: [WebhookDeliverer, WebhookSweeper],
})
export class WebhookWorkerModule {}
