import { Module, type DynamicModule } from '@nestjs/common';
import { AUTH_ENTITIES, AuthModule } from '#auth';
import { ApiSurfaceModule, RateLimitModule } from '#common';
import { ConfigModule, type GatewayEnv } from '#config';
import { DatabaseModule } from '#database';
import { ObservabilityModule } from '#observability';
import { PURCHASE_ENTITIES, PURCHASE_ERRORS } from '#purchase';
import { OUTBOX_ENTITIES, REDIS_CLIENT, RedisHealthIndicator, RedisModule } from '#queues';
import { PurchaseApiModule } from './purchase-api.module.js';

@Module({})
export class PurchaseGatewayModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: PurchaseGatewayModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot('purchase-gateway', { readiness: { redis: RedisHealthIndicator } }),
        DatabaseModule.forRoot({ applicationName: 'purchase-gateway', entities: [...AUTH_ENTITIES, ...OUTBOX_ENTITIES, ...PURCHASE_ENTITIES] }),
        RedisModule,
        AuthModule,
        ApiSurfaceModule.forRoot('purchase', PURCHASE_ERRORS),
        RateLimitModule.forRoot({
          code: 'API_RATE_LIMITED',
          readPerMinute: config.RATE_LIMIT_READ_PER_MINUTE,
          writePerMinute: config.RATE_LIMIT_WRITE_PER_MINUTE,
          redis: REDIS_CLIENT,
        }),
        PurchaseApiModule,
      ],
    };
  }
}
