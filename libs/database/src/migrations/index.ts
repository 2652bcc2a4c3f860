import { VendorsAndTokens1763780000000 } from './1763780000000-vendors-and-tokens.js';
import { Outbox1763780000100 } from './1763780000100-outbox.js';
import { PayoutLedgerAndPayouts1763780200000 } from './1763780200000-payout-ledger-and-payouts.js';
import { PurchaseCatalogueAndPricing1763780100000 } from './1763780100000-purchase-catalogue-and-pricing.js';
import { PurchaseQuotesAndTransactions1763780100100 } from './1763780100100-purchase-quotes-and-transactions.js';
import { PurchaseSweeperIndexes1763780300000 } from './1763780300000-purchase-sweeper-indexes.js';
import { PurchaseVelocityBuckets1763780400000 } from './1763780400000-purchase-velocity-buckets.js';
import { ReconciliationExceptions1763780500000 } from './1763780500000-reconciliation-exceptions.js';
import { PayoutProviderEvidence1763780600000 } from './1763780600000-payout-provider-evidence.js';
import { SettlementReports1763780800000 } from './1763780800000-settlement-reports.js';
import { DashboardAccounts1763780900000 } from './1763780900000-dashboard-accounts.js';
import { DashboardFulfilmentReads1763780900100 } from './1763780900100-dashboard-fulfilment-reads.js';
import { Webhooks1763781100000 } from './1763781100000-webhooks.js';
import { StaffBackOffice1763781300000 } from './1763781300000-staff-back-office.js';
import { StaffManualResolutions1763781300100 } from './1763781300100-staff-manual-resolutions.js';
import { ChangeNotifications1763781400000 } from './1763781400000-change-notifications.js';
import { PurchaseAdmissionFunction1763781500000 } from './1763781500000-purchase-admission-function.js';
import { PurchaseCallbackFunction1763781700000 } from './1763781700000-purchase-callback-function.js';
import { LedgerCorrections1763782610000 } from './1763782610000-ledger-corrections.js';
import { PayoutHoldBound1763782900000 } from './1763782900000-payout-hold-bound.js';
import { SettlementDays1763783000000 } from './1763783000000-settlement-days.js';
import { ExceptionDesk1763783100000 } from './1763783100000-exception-desk.js';
import { DashboardPasswordResets1763783300000 } from './1763783300000-dashboard-password-resets.js';
import { DashboardTeamTwoStep1763783300100 } from './1763783300100-dashboard-team-two-step.js';
import { BackOfficeSearch1763783600000 } from './1763783600000-back-office-search.js';
import { ReviewItemWork1763783700000 } from './1763783700000-review-item-work.js';
import { PurchaseSubmissionClaims1763784000000 } from './1763784000000-purchase-submission-claims.js';
import { PurchaseCallbackClaims1763784000100 } from './1763784000100-purchase-callback-claims.js';
import { PurchaseHotUpdates1763784000200 } from './1763784000200-purchase-hot-updates.js';

/**
 * Every migration, in order. Listed explicitly (not globbed) so that the apps, the migration
 * CLI and the tests under Jest load exactly the same set. A migration is never edited once
 * it has landed on main; `npm run migration:generate` writes a new file, which is added here.
 */
export const MIGRATIONS = [VendorsAndTokens1763780000000, Outbox1763780000100, PayoutLedgerAndPayouts1763780200000, PurchaseCatalogueAndPricing1763780100000, PurchaseQuotesAndTransactions1763780100100, PurchaseSweeperIndexes1763780300000, PurchaseVelocityBuckets1763780400000, ReconciliationExceptions1763780500000, PayoutProviderEvidence1763780600000, SettlementReports1763780800000, DashboardAccounts1763780900000, DashboardFulfilmentReads1763780900100, Webhooks1763781100000, StaffBackOffice1763781300000, StaffManualResolutions1763781300100, ChangeNotifications1763781400000, PurchaseAdmissionFunction1763781500000, PurchaseCallbackFunction1763781700000, LedgerCorrections1763782610000, PayoutHoldBound1763782900000, SettlementDays1763783000000, ExceptionDesk1763783100000, DashboardPasswordResets1763783300000, DashboardTeamTwoStep1763783300100, BackOfficeSearch1763783600000, ReviewItemWork1763783700000, PurchaseSubmissionClaims1763784000000, PurchaseCallbackClaims1763784000100, PurchaseHotUpdates1763784000200];
