import { Module, type DynamicModule } from '@nestjs/common';
import { AUTH_ENTITIES } from '#auth';
import { ConfigModule, type GatewayEnv, type ConfigGroup } from '#config';
import { DatabaseModule } from '#database';
import { ObservabilityModule } from '#observability';
import { PAYOUT_ENTITIES, PayoutWorkerModule } from '#payout';
import { PURCHASE_ENTITIES, PurchaseWorkerModule } from '#purchase';
import { OUTBOX_ENTITIES, RedisHealthIndicator, RedisModule, WorkerQueuesModule } from '#queues';
import { SettlementWorkerModule } from '#settlement';
import { WebhookWorkerModule } from '#webhooks';
import { BatchItemJobHandler, PollStatusJobHandler } from './payout/payout-job-handlers.js';
import { SubmitPurchaseHandler, VerifyPurchaseHandler } from './purchase/purchase-job-handlers.js';
import { WebhookDeliveryHandler } from './webhooks/webhook-delivery.handler.js';

/** The config groups this deployable validates and may read (libs/config/src/config-groups.ts). Every job of both domains, settlement reports and webhook deliveries. */
export const RECONCILIATION_WORKER_CONFIG: readonly ConfigGroup[] = ['database', 'redis', 'workerQueues', 'encryption', 'purchaseProvider', 'purchaseTimings', 'payoutProvider', 'payoutTimings', 'settlement', 'webhooks'];

/**
 * BullMQ consumers, the outbox relay and the settlement-report schedule. The job handlers are this module's providers,
 * served by the domain worker modules imported here; WorkerRuntime refuses to start while any registered job lacks one.
 */
@Module({})
export class ReconciliationWorkerModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: ReconciliationWorkerModule,
      imports: [
        ConfigModule.forRoot(config, RECONCILIATION_WORKER_CONFIG),
        ObservabilityModule.forRoot('reconciliation-worker', { readiness: { redis: RedisHealthIndicator } }),
        // Auth's tables too: the payout domain module reads vendors through #auth's VendorAccountsModule.
        DatabaseModule.forRoot({ applicationName: 'reconciliation-worker', entities: [...AUTH_ENTITIES, ...OUTBOX_ENTITIES, ...PURCHASE_ENTITIES, ...PAYOUT_ENTITIES] }),
        RedisModule,
        WorkerQueuesModule,
        PayoutWorkerModule,
        PurchaseWorkerModule,
        SettlementWorkerModule,
        WebhookWorkerModule,
      ],
      providers: [BatchItemJobHandler, PollStatusJobHandler, SubmitPurchaseHandler, VerifyPurchaseHandler, WebhookDeliveryHandler],
    };
  }

  /** The config groups this deployable validates at start-up (#bootstrap reads them here). */
  static readonly configGroups = RECONCILIATION_WORKER_CONFIG;
}
