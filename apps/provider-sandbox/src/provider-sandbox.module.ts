import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyGuard } from './api-key/api-key.guard.js';
import { CallbackSender } from './callbacks/callback-sender.service.js';
import { HealthController } from './health/health.controller.js';
import { CashSendController } from './payout/cash-send/cash-send.controller.js';
import { PayoutPaymentBook } from './payout/payout-payment-book.service.js';
import { RtcEftController } from './payout/rtc-eft/rtc-eft.controller.js';
import { VouchersController } from './payout/vouchers/vouchers.controller.js';
import { PurchaseCatalogueController } from './purchase/catalogue/purchase-catalogue.controller.js';
import { PurchaseCatalogue } from './purchase/catalogue/purchase-catalogue.service.js';
import { PurchaseLookupsController } from './purchase/lookups/purchase-lookups.controller.js';
import { PurchaseLookups } from './purchase/lookups/purchase-lookups.service.js';
import { PurchaseSandboxControlsController } from './purchase/transactions/purchase-sandbox-controls.controller.js';
import { PurchaseTransactionsController } from './purchase/transactions/purchase-transactions.controller.js';
import { PurchaseTransactions } from './purchase/transactions/purchase-transactions.service.js';
import { SANDBOX_OPTIONS, resolveSandboxOptions, type SandboxOptions } from './sandbox-options.js';
import { SandboxScheduler } from './sandbox-scheduler.js';
import { SettlementControlController } from './settlement/settlement-control.controller.js';
import { SettlementReportsController } from './settlement/settlement-reports.controller.js';
import { SettlementReports } from './settlement/settlement-reports.service.js';
import { PayoutControlController, SubmissionWitnessController } from './witness/submission-witness.controller.js';
import { SubmissionWitness } from './witness/submission-witness.service.js';

/** The whole provider sandbox; state lives in memory for the life of the module. */
@Module({})
export class ProviderSandboxModule {
  static register(options: Partial<SandboxOptions> = {}): DynamicModule {
    return {
      module: ProviderSandboxModule,
      controllers: [
        HealthController,
        PurchaseCatalogueController,
        PurchaseLookupsController,
        PurchaseTransactionsController,
        PurchaseSandboxControlsController,
        CashSendController,
        RtcEftController,
        VouchersController,
        SubmissionWitnessController,
        SettlementReportsController,
        SettlementControlController,
        PayoutControlController,
      ],
      providers: [
        { provide: SANDBOX_OPTIONS, useValue: resolveSandboxOptions(options) },
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        SandboxScheduler,
        SubmissionWitness,
        CallbackSender,
        PurchaseCatalogue,
        PurchaseLookups,
        PurchaseTransactions,
        PayoutPaymentBook,
        SettlementReports,
      ],
    };
  }
}
