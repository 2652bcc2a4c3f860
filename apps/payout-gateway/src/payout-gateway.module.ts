import { Module, type DynamicModule } from '@nestjs/common';
import { AUTH_ENTITIES, AuthModule } from '#auth';
import { ApiSurfaceModule, RateLimitModule } from '#common';
import { ConfigModule, type GatewayEnv, type ConfigGroup } from '#config';
import { DatabaseModule } from '#database';
import { ObservabilityModule } from '#observability';
import { PAYOUT_ENTITIES, PayoutDomainModule } from '#payout';
import { OUTBOX_ENTITIES, REDIS_CLIENT, RedisHealthIndicator, RedisModule } from '#queues';
import { PAYOUT_ENVELOPE } from './http/payout-envelope.js';
import { AccountController } from './account/account.controller.js';
import { BatchesController } from './batches/batches.controller.js';
import { MethodsController } from './methods/methods.controller.js';
import { PayoutsController } from './payouts/payouts.controller.js';
import { StatementController } from './statement/statement.controller.js';
import { ExportsController } from './statement/exports.controller.js';
import { BatchListController, PayoutListController } from './lists/payout-lists.controller.js';
import { WebhookEndpointsController } from './webhooks/webhook-endpoints.controller.js';
import { WebhookEndpointsModule } from '#webhooks';

/** The config groups this deployable validates and may read (libs/config/src/config-groups.ts). The payout API (it submits to the payout provider synchronously) and webhook endpoints. */
export const PAYOUT_GATEWAY_CONFIG: readonly ConfigGroup[] = ['database', 'redis', 'rateLimits', 'encryption', 'payoutProvider', 'payoutTimings', 'webhooks'];

@Module({})
export class PayoutGatewayModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: PayoutGatewayModule,
      imports: [
        ConfigModule.forRoot(config, PAYOUT_GATEWAY_CONFIG),
        ObservabilityModule.forRoot('payout-gateway', { readiness: { redis: RedisHealthIndicator } }),
        DatabaseModule.forRoot({ applicationName: 'payout-gateway', entities: [...AUTH_ENTITIES, ...OUTBOX_ENTITIES, ...PAYOUT_ENTITIES] }),
        RedisModule,
        AuthModule,
        ApiSurfaceModule.forRoot(PAYOUT_ENVELOPE),
        // The same per-token read and write buckets as the purchase gateway, with the same
        // API_RATE_LIMITED code, in the payout envelope (RATE_LIMITED stays the SMS cooldown's).
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
      controllers: [AccountController, MethodsController, PayoutsController, BatchesController, StatementController, PayoutListController, BatchListController, ExportsController, WebhookEndpointsController],
    };
  }

  /** The config groups this deployable validates at start-up (#bootstrap reads them here). */
  static readonly configGroups = PAYOUT_GATEWAY_CONFIG;
}
