import { Module, type DynamicModule } from '@nestjs/common';
import { AUTH_ENTITIES, AuthModule } from '#auth';
import { ApiSurfaceModule, RateLimitModule } from '#common';
import { ConfigModule, type GatewayEnv, type ConfigGroup } from '#config';
import { DatabaseModule } from '#database';
import { ObservabilityModule } from '#observability';
import { PURCHASE_ENTITIES } from '#purchase';
import { OUTBOX_ENTITIES, REDIS_CLIENT, RedisHealthIndicator, RedisModule } from '#queues';
import { PURCHASE_ENVELOPE } from './http/purchase-envelope.js';
import { PurchaseApiModule } from './purchase-api.module.js';

/** The config groups this deployable validates and may read (libs/config/src/config-groups.ts). The purchase API, its provider callback and webhook endpoints. */
export const PURCHASE_GATEWAY_CONFIG: readonly ConfigGroup[] = ['database', 'redis', 'rateLimits', 'encryption', 'purchaseProvider', 'purchaseTimings', 'webhooks'];

@Module({})
export class PurchaseGatewayModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: PurchaseGatewayModule,
      imports: [
        ConfigModule.forRoot(config, PURCHASE_GATEWAY_CONFIG),
        ObservabilityModule.forRoot('purchase-gateway', { readiness: { redis: RedisHealthIndicator } }),
        DatabaseModule.forRoot({ applicationName: 'purchase-gateway', entities: [...AUTH_ENTITIES, ...OUTBOX_ENTITIES, ...PURCHASE_ENTITIES] }),
        RedisModule,
        AuthModule,
        ApiSurfaceModule.forRoot(PURCHASE_ENVELOPE),
        RateLimitModule.forRoot({
          code: PURCHASE_ENVELOPE.rateLimitCode,
          readPerMinute: config.RATE_LIMIT_READ_PER_MINUTE,
          writePerMinute: config.RATE_LIMIT_WRITE_PER_MINUTE,
          redis: REDIS_CLIENT,
        }),
        PurchaseApiModule,
      ],
    };
  }

  /** The config groups this deployable validates at start-up (#bootstrap reads them here). */
  static readonly configGroups = PURCHASE_GATEWAY_CONFIG;
}
