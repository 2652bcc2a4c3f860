import { Module, type DynamicModule } from '@nestjs/common';
import { AuthModule } from '#auth';
import { ApiSurfaceModule, RateLimitModule } from '#common';
import { ConfigModule, type GatewayEnv } from '#config';
import { DatabaseModule } from '#database';
import { ObservabilityModule } from '#observability';
import { REDIS_CLIENT, RedisModule } from '#queues';
import { PURCHASE_ENVELOPE } from './http/purchase-envelope.js';
import { PurchaseApiModule } from './purchase-api.module.js';

@Module({})
export class PurchaseGatewayModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: PurchaseGatewayModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot('purchase-gateway'),
        DatabaseModule.forRoot('purchase-gateway'),
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
}
