import { Module } from '@nestjs/common';
import { CatalogueReadCache, PurchaseDomainModule } from '#purchase';
import { ProviderCallbackController } from './callbacks/provider-callback.controller.js';
import { CatalogueController } from './catalogue/catalogue.controller.js';
import { LimitsController } from './limits/limits.controller.js';
import { LookupsController } from './lookups/lookups.controller.js';
import { QuotesController } from './quotes/quotes.controller.js';
import { ReportsController } from './reports/reports.controller.js';
import { PurchaseExportsController, PurchaseStatementController } from './reports/statement.controller.js';
import { TransactionsController } from './transactions/transactions.controller.js';
import { WebhookEndpointsController } from './webhooks/webhook-endpoints.controller.js';
import { WebhookEndpointsModule } from '#webhooks';

/** Every vendor endpoint of the purchase contract, plus the provider callback. */
@Module({
  imports: [PurchaseDomainModule, WebhookEndpointsModule],
  // Only the gateway caches the catalogue reads (the worker and the CLI open no LISTEN connection).
  providers: [CatalogueReadCache],
  controllers: [
    CatalogueController,
    LookupsController,
    QuotesController,
    TransactionsController,
    LimitsController,
    ReportsController,
    PurchaseStatementController,
    PurchaseExportsController,
    ProviderCallbackController,
    WebhookEndpointsController,
  ],
})
export class PurchaseApiModule {}
