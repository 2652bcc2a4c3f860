import { Module, type DynamicModule } from '@nestjs/common';
import { AuthModule } from '#auth';
import { ApiSurfaceModule, RateLimitModule } from '#common';
import { ConfigModule, type GatewayEnv } from '#config';
import { DatabaseModule } from '#database';
import { ObservabilityModule } from '#observability';
import { PayoutDomainModule } from '#payout';
import { REDIS_CLIENT, RedisModule } from '#queues';
import { PAYOUT_ENVELOPE } from './http/payout-envelope.js';
import { AccountController } from './account/account.controller.js';
import { BatchesController } from './batches/batches.controller.js';
import { MethodsController } from './methods/methods.controller.js';
import { PayoutsController } from './payouts/payouts.controller.js';
import { WebhookEndpointsController } from './webhooks/webhook-endpoints.controller.js';
import { WebhookEndpointsModule } from '#webhooks';

@Module({})
export class PayoutGatewayModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: PayoutGatewayModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot('payout-gateway'),
        DatabaseModule.forRoot('payout-gateway'),
        RedisModule,
        AuthModule,
        ApiSurfaceModule.forRoot(PAYOUT_ENVELOPE),
        // The same per-token read and write buckets as the purchase gateway, with the payout
        // contract's RATE_LIMITED code, in the payout envelope.
        RateLimitModule.forRoot({
          code: PAYOUT_ENVELOPE.rateLimitCode,
          scope: 'payout',
          readPerMinute: config.RATE_LIMIT_READ_PER_MINUTE,
          writePerMinute: config.RATE_LIMIT_WRITE_PER_MINUTE,
          redis: REDIS_CLIENT,
        }),
        PayoutDomainModule,
        WebhookEndpointsModule,
      ],
      controllers: [AccountController, MethodsController, PayoutsController, BatchesController, WebhookEndpointsController],
    };
  }
}
