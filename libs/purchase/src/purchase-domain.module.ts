import { Module } from '@nestjs/common';
import { FieldEncryption } from '#common';
import { ProviderCallbackService } from './callbacks/provider-callback.service.js';
import { CatalogueSyncService } from './catalogue/catalogue-sync.service.js';
import { CatalogueService } from './catalogue/catalogue.service.js';
import { FulfilmentService } from './fulfilment/fulfilment.service.js';
import { LookupsService } from './lookups/lookups.service.js';
import { PricingService } from './pricing/pricing.service.js';
import { purchaseProviderClientProvider } from './provider/purchase-provider.factory.js';
import { ProductionRelease } from './provider/production-release.js';
import { PurchaseReadiness } from './provider/purchase-readiness.js';
import { QuoteService } from './quotes/quote.service.js';
import { ReportsService } from './reports/reports.service.js';
import { SpendControlsService } from './spend-controls/spend-controls.service.js';
import { AdmissionClock } from './transactions/admission/admission-clock.js';
import { AdmitPurchaseUseCase } from './transactions/admission/admit-purchase.use-case.js';
import { PurchaseReviewService } from './transactions/purchase-review.service.js';
import { TransactionQueryService } from './transactions/transaction-query.service.js';

const SERVICES = [
  CatalogueSyncService,
  CatalogueService,
  PricingService,
  QuoteService,
  SpendControlsService,
  TransactionQueryService,
  AdmitPurchaseUseCase,
  AdmissionClock,
  PurchaseReviewService,
  FulfilmentService,
  ProviderCallbackService,
  LookupsService,
  ReportsService,
  PurchaseReadiness,
  ProductionRelease,
];

/**
 * The purchase domain without HTTP or queue consumers: needs only GatewayEnv and the database
 * (ConfigModule and DatabaseModule from the importing app). Used by the gateway, the worker
 * and the operator CLI.
 */
@Module({
  providers: [...SERVICES, purchaseProviderClientProvider, FieldEncryption],
  exports: [...SERVICES, purchaseProviderClientProvider, FieldEncryption],
})
export class PurchaseDomainModule {}
