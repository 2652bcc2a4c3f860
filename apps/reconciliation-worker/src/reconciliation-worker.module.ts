import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, type GatewayEnv } from '#config';
import { DatabaseModule } from '#database';
import { ObservabilityModule } from '#observability';
import { PayoutWorkerModule } from '#payout';
import { PurchaseWorkerModule } from '#purchase';
import { RedisModule, WorkerQueuesModule } from '#queues';
import { SettlementWorkerModule } from '#settlement';
import { WebhookHandlersModule } from './webhooks/webhook-handlers.module.js';

/**
 * BullMQ consumers, the outbox relay and the settlement-report schedule. Job handlers come from the domain modules imported
 * here; WorkerRuntime refuses to start while any registered job lacks one.
 */
@Module({})
export class ReconciliationWorkerModule {
  static register(config: GatewayEnv, handlerModules: DynamicModule['imports'] = []): DynamicModule {
    return {
      module: ReconciliationWorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot('reconciliation-worker'),
        DatabaseModule.forRoot('reconciliation-worker'),
        RedisModule,
        WorkerQueuesModule,
        PayoutWorkerModule,
        PurchaseWorkerModule,
        SettlementWorkerModule,
        WebhookHandlersModule,
        ...(handlerModules ?? []),
      ],
    };
  }
}
