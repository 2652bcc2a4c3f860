import { Module } from '@nestjs/common';
import { VendorAccountsModule } from '#auth';
import { FieldEncryption } from '#common';
import { ProviderCallbackService } from './verification/provider-callback.service.js';
import { CatalogueSyncService } from './catalogue/catalogue-sync.service.js';
import { CatalogueService } from './catalogue/catalogue.service.js';
import { FulfilmentService } from './outcomes/fulfilment.service.js';
import { LookupsService } from './verification/lookups.service.js';
import { PricingService } from './catalogue/pricing.service.js';
import { purchaseProviderClientProvider } from './catalogue/purchase-provider.factory.js';
import { ProductionRelease } from './catalogue/production-release.js';
import { PurchaseReadiness } from './catalogue/purchase-readiness.js';
import { QuoteService } from './admission/quote.service.js';
import { CatalogueRepository } from './persistence/catalogue.repository.js';
import { PricingRepository } from './persistence/pricing.repository.js';
import { QuotesRepository } from './persistence/quotes.repository.js';
import { SpendControlsRepository } from './persistence/spend-controls.repository.js';
import { TransactionEvidenceRepository } from './persistence/transaction-evidence.repository.js';
import { TransactionListRepository } from './persistence/transaction-list.repository.js';
import { TransactionStaffRepository } from './persistence/transaction-staff.repository.js';
import { TransactionWorkRepository } from './persistence/transaction-work.repository.js';
import { TransactionRepository } from './persistence/transaction.repository.js';
import { ReportsService } from './reports/reports.service.js';
import { PurchaseStatementService } from './reports/purchase-statement.service.js';
import { SpendControlsService } from './admission/spend-controls.service.js';
import { AdmissionClock } from './admission/admission-clock.js';
import { PurchaseAdmissionService } from './admission/purchase-admission.service.js';
import { PurchaseReviewService } from './verification/purchase-review.service.js';
import { TransactionQueryService } from './reports/transaction-query.service.js';
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
  CatalogueSyncService,
  CatalogueService,
  PricingService,
  QuoteService,
  SpendControlsService,
  TransactionQueryService,
  PurchaseAdmissionService,
  AdmissionClock,
  PurchaseReviewService,
  PurchaseSettlementService,
  FulfilmentService,
  ProviderCallbackService,
  LookupsService,
  ReportsService,
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
