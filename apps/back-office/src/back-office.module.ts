import { Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AUTH_ENTITIES, VendorAccountsModule } from '#auth';
import { ConfigModule, GatewayEnv, type ConfigGroup } from '#config';
import { DatabaseModule } from '#database';
import { ObservabilityModule } from '#observability';
import { PAYOUT_ENTITIES, PayoutDomainModule } from '#payout';
import { PURCHASE_ENTITIES, PurchaseDomainModule } from '#purchase';
import { OUTBOX_ENTITIES, REDIS_CLIENT, RedisHealthIndicator, RedisModule } from '#queues';
import { SettlementCloseStatusModule } from '#settlement';
import { StaffExceptionsModule, StaffModule, StaffReviewModule, StaffSearchModule } from '#staff';
import { Mailer, PageExceptionFilter, pageSecurityHeaders, signInProviders } from '#web';
import { AssetsController } from './pages/assets.controller.js';
import { AuditController } from './pages/audit.controller.js';
import { AuthController } from './pages/auth.controller.js';
import { CloseController } from './pages/close.controller.js';
import { ExceptionsController } from './pages/exceptions.controller.js';
import { HomeController } from './pages/home.controller.js';
import { ProposalsController } from './pages/proposals.controller.js';
import { QueuesController } from './pages/queues.controller.js';
import { SearchController } from './pages/search.controller.js';
import { VendorRecordsController } from './pages/vendor-records.controller.js';
import { VendorsController } from './pages/vendors.controller.js';
import { PayoutMethodsController } from './pages/payout-methods.controller.js';
import { PricingController } from './pages/pricing.controller.js';
import { StaffController } from './pages/staff.controller.js';
import { ReviewQueueGauges } from './review-queue-gauges.js';
import { StaffMail } from './staff-mail.js';
import { StaffGuard } from './web/access.js';
import { layout } from './web/layout.js';
import type { StaffRequest } from './web/staff-request.js';

/**
 * The staff back-office (docs/BACK-OFFICE.md): internal only, server-rendered pages, staff
 * sessions; vendor tokens and vendor dashboard sessions are never read here.
 */
/**
 * The config groups this deployable validates and may read (libs/config/src/config-groups.ts):
 * staff sign-in (database, Redis, TOTP sealing), and both domains' outcome code for the review
 * queues. The provider settings are validated but never used to call a provider: "check the
 * provider now" is queued for the reconciliation worker. `mail`: the staff mail (StaffMail).
 */
export const BACK_OFFICE_CONFIG: readonly ConfigGroup[] = ['database', 'redis', 'encryption', 'purchaseProvider', 'purchaseTimings', 'payoutProvider', 'payoutTimings', 'webhooks', 'staffFourEyes', 'mail'];

@Module({})
export class BackOfficeModule implements NestModule {
  static register(config: GatewayEnv): DynamicModule {
    return {
      module: BackOfficeModule,
      imports: [
        ConfigModule.forRoot(config, BACK_OFFICE_CONFIG),
        ObservabilityModule.forRoot('back-office', { readiness: { redis: RedisHealthIndicator } }),
        DatabaseModule.forRoot({ applicationName: 'back-office', entities: [...AUTH_ENTITIES, ...OUTBOX_ENTITIES, ...PURCHASE_ENTITIES, ...PAYOUT_ENTITIES] }),
        RedisModule,
        StaffModule,
        StaffReviewModule,
        // The reconciliation exceptions queue and its four-eyes money resolutions (ExceptionsController).
        StaffExceptionsModule,
        // The one search box across vendors (SearchController).
        StaffSearchModule,
        VendorAccountsModule,
        PayoutDomainModule,
        // Pricing versions (PricingController).
        PurchaseDomainModule,
        // The provider-days' close status (CloseController), read from the database only.
        SettlementCloseStatusModule,
      ],
      controllers: [AssetsController, AuthController, HomeController, QueuesController, ExceptionsController, VendorsController, VendorRecordsController, PayoutMethodsController, PricingController, ProposalsController, StaffController, AuditController, CloseController, SearchController],
      providers: [
        // `__Host-staff_session` / `__Host-staff_pre`: a vendor dashboard cookie (`dash_…`) means nothing here.
        ...signInProviders('staff', REDIS_CLIENT),
        ReviewQueueGauges,
        // Staff mail: authenticator resets, disabled and re-enabled accounts, proposals waiting for a decision.
        Mailer,
        StaffMail,
        { provide: APP_GUARD, useClass: StaffGuard },
        {
          provide: APP_FILTER,
          useValue: new PageExceptionFilter({
            app: 'Back-office',
            notFound: 'There is nothing here.',
            fieldMessages: true,
            unexpected: 'The page could not be shown. Try again; if it keeps failing, quote the request id.',
            page: (request: StaffRequest, title, body) => layout({ title, session: request.signedIn, body }),
          }),
        },
      ],
    };
  }

  /** The config groups this deployable validates at start-up (#bootstrap reads them here). */
  static readonly configGroups = BACK_OFFICE_CONFIG;

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(pageSecurityHeaders).forRoutes('*path');
  }
}
