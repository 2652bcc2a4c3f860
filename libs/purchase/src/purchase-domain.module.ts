import { Module } from '@nestjs/common';
import { VendorAccountsModule } from '#auth';
import { FieldEncryption } from '#common';
import { PurchaseCallbackService } from './verification/purchase-callback.service.js';
import { PurchaseCatalogueSyncService } from './catalogue/purchase-catalogue-sync.service.js';
import { PurchaseCatalogueService } from './catalogue/purchase-catalogue.service.js';
import { PurchaseFulfilmentService } from './outcomes/purchase-fulfilment.service.js';
import { PurchaseLookupsService } from './verification/purchase-lookups.service.js';
import { PurchasePricingService } from './catalogue/purchase-pricing.service.js';
import { purchaseProviderClientProvider } from './catalogue/purchase-provider.factory.js';
import { ProductionRelease } from './catalogue/production-release.js';
import { PurchaseReadiness } from './catalogue/purchase-readiness.js';
import { PurchaseQuoteService } from './admission/purchase-quote.service.js';
import { CatalogueRepository } from './persistence/catalogue.repository.js';
import { PricingRepository } from './persistence/pricing.repository.js';
import { QuotesRepository } from './persistence/quotes.repository.js';
import { SpendControlsRepository } from './persistence/spend-controls.repository.js';
import { TransactionEvidenceRepository } from './persistence/transaction-evidence.repository.js';
import { TransactionListRepository } from './persistence/transaction-list.repository.js';
import { TransactionStaffRepository } from './persistence/transaction-staff.repository.js';
import { TransactionWorkRepository } from './persistence/transaction-work.repository.js';
import { TransactionRepository } from './persistence/transaction.repository.js';
import { PurchaseSalesSummaryService } from './reports/purchase-sales-summary.service.js';
import { PurchaseStatementService } from './reports/purchase-statement.service.js';
import { PurchaseSpendControlsService } from './admission/purchase-spend-controls.service.js';
import { AdmissionClock } from './admission/admission-clock.js';
import { PurchaseAdmissionService } from './admission/purchase-admission.service.js';
import { PurchaseReviewService } from './verification/purchase-review.service.js';
import { PurchaseQueryService } from './reports/purchase-query.service.js';
import { PurchaseSettlementService } from './settlement/purchase-settlement.service.js';

/** The repositories (per aggregate and purpose): the only classes that hold SQL on the purchase tables. */
const REPOSITORIES = [
  TransactionRepository,
  TransactionEvidenceRepository,
  TransactionWorkRepository,
  TransactionStaffRepository,
  TransactionListRepository,
  QuotesRepository,
  CatalogueRepository,
  PricingRepository,
  SpendControlsRepository,
];

const SERVICES = [
  PurchaseCatalogueSyncService,
  PurchaseCatalogueService,
  PurchasePricingService,
  PurchaseQuoteService,
  PurchaseSpendControlsService,
  PurchaseQueryService,
  PurchaseAdmissionService,
  AdmissionClock,
  PurchaseReviewService,
  PurchaseSettlementService,
  PurchaseFulfilmentService,
  PurchaseCallbackService,
  PurchaseLookupsService,
  PurchaseSalesSummaryService,
  PurchaseStatementService,
  PurchaseReadiness,
  ProductionRelease,
];

/**
 * The purchase domain without HTTP or queue consumers: needs only GatewayEnv and the database
 * (ConfigModule and DatabaseModule from the importing app). Used by the gateway, the worker
 * and the operator CLI.
 */
@Module({
  // VendorDirectory: the vendor facts purchases check (existence, production release).
  imports: [VendorAccountsModule],
  providers: [...REPOSITORIES, ...SERVICES, purchaseProviderClientProvider, FieldEncryption],
  exports: [...REPOSITORIES, ...SERVICES, purchaseProviderClientProvider, FieldEncryption],
})
export class PurchaseDomainModule {}
