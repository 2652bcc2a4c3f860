import { Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AUTH_ENTITIES, VendorAccountsModule } from '#auth';
import { ConfigModule, GatewayEnv, type ConfigGroup } from '#config';
import { DashboardAccountsModule } from '#dashboard';
import { DatabaseModule } from '#database';
import { ObservabilityModule } from '#observability';
import { PAYOUT_ENTITIES, PayoutDomainModule } from '#payout';
import { PURCHASE_ENTITIES, PurchaseDomainModule } from '#purchase';
import { OUTBOX_ENTITIES, REDIS_CLIENT, RedisHealthIndicator, RedisModule } from '#queues';
import { Mailer, PageExceptionFilter, pageSecurityHeaders, signInProviders } from '#web';
import { WebhookEndpointsModule } from '#webhooks';
import { AccountController } from './pages/account.controller.js';
import { AssetsController } from './pages/assets.controller.js';
import { AuthController } from './pages/auth.controller.js';
import { BatchesController } from './pages/batches.controller.js';
import { PayoutsController } from './pages/payouts.controller.js';
import { PurchasesController } from './pages/purchases.controller.js';
import { SpendController } from './pages/spend.controller.js';
import { StatementController } from './pages/statement.controller.js';
import { SearchController } from './pages/search.controller.js';
import { TeamController } from './pages/team.controller.js';
import { TokensController } from './pages/tokens.controller.js';
import { WebhookChangesController } from './pages/webhook-changes.controller.js';
import { WebhookPages } from './pages/webhook-pages.js';
import { WebhooksController } from './pages/webhooks.controller.js';
import { SessionGuard } from './web/access.js';
import type { DashboardRequest } from './web/dashboard-request.js';
import { layout } from './web/layout.js';

/** The config groups this deployable validates and may read (libs/config/src/config-groups.ts). The pages, and both domains' services they call (a dashboard user can send payouts and resend their SMS). */
export const VENDOR_DASHBOARD_CONFIG: readonly ConfigGroup[] = ['database', 'redis', 'dashboard', 'mail', 'encryption', 'purchaseProvider', 'purchaseTimings', 'payoutProvider', 'payoutTimings', 'webhooks'];

@Module({})
export class VendorDashboardModule implements NestModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: VendorDashboardModule,
      imports: [
        ConfigModule.forRoot(config, VENDOR_DASHBOARD_CONFIG),
        ObservabilityModule.forRoot('vendor-dashboard', { readiness: { redis: RedisHealthIndicator } }),
        DatabaseModule.forRoot({ applicationName: 'vendor-dashboard', entities: [...AUTH_ENTITIES, ...OUTBOX_ENTITIES, ...PURCHASE_ENTITIES, ...PAYOUT_ENTITIES] }),
        RedisModule,
        VendorAccountsModule,
        DashboardAccountsModule,
        PurchaseDomainModule,
        PayoutDomainModule,
        // The service behind both gateways' webhook-endpoints API: one URL guard, one validation.
        WebhookEndpointsModule,
      ],
      controllers: [AssetsController, AccountController, AuthController, TokensController, PurchasesController, PayoutsController, BatchesController, SpendController, StatementController, SearchController, TeamController, WebhooksController, WebhookChangesController],
      providers: [
        // `__Host-dash_session` and `__Host-dash_pre` (docs/DASHBOARD.md): the back-office's `staff_` cookies mean nothing here.
        ...signInProviders('dash', REDIS_CLIENT),
        Mailer,
        WebhookPages,
        { provide: APP_GUARD, useClass: SessionGuard },
        {
          provide: APP_FILTER,
          useValue: new PageExceptionFilter({
            app: 'Dashboard',
            notFound: 'There is nothing here, or it belongs to another account.',
            unexpected: 'The page could not be shown. Try again; if it keeps failing, quote the request id to support.',
            page: (request: DashboardRequest, title, body) => layout({ title, session: request.signedIn, body }),
          }),
        },
      ],
    };
  }

  /** The config groups this deployable validates at start-up (#bootstrap reads them here). */
  static readonly configGroups = VENDOR_DASHBOARD_CONFIG;

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(pageSecurityHeaders).forRoutes('*path');
  }
}
