import { Module } from '@nestjs/common';
import { PayoutDomainModule } from '#payout';
import { PurchaseDomainModule, PurchaseOutcomesService, PurchaseTimings } from '#purchase';
import { ReconciliationModule } from '#reconciliation';
import { PayoutLineMatcher } from './payout-line-matcher.js';
import { SettlementRepository } from './persistence/settlement.repository.js';
import { PurchaseLineMatcher } from './purchase-line-matcher.js';
import { SettlementIngestor } from './settlement-ingestor.js';
import { SettlementMetrics } from './settlement-metrics.js';
import { SettlementReportService } from './settlement-report.service.js';
import { SettlementScheduler } from './settlement-scheduler.js';
import { SettlementClock } from './settlement-clock.js';
import { SettlementCloseStatus } from './settlement-close-status.js';
import { SettlementDayCloser } from './settlement-day-closer.js';
import { SettlementDaysRepository } from './persistence/settlement-days.repository.js';

const SERVICES = [SettlementRepository, PurchaseTimings, PurchaseOutcomesService, PurchaseLineMatcher, PayoutLineMatcher, SettlementMetrics, SettlementIngestor, SettlementReportService, SettlementDayCloser];

/**
 * The close status of the provider-days alone (the database only): what the back-office Close
 * page reads without the rest of the settlement machinery. The settlement module imports it, so
 * a process holds one clock.
 */
@Module({
  providers: [SettlementClock, SettlementDaysRepository, SettlementCloseStatus],
  exports: [SettlementClock, SettlementDaysRepository, SettlementCloseStatus],
})
export class SettlementCloseStatusModule {}

/**
 * Settlement reports and their reconciliation, without a schedule: the ops CLI runs it on
 * demand. Its own PurchaseOutcomesService instance is the same stateless class the worker uses
 * (all it holds is the data source and timings), so a line moves a purchase exactly as a lookup does.
 */
@Module({
  imports: [PurchaseDomainModule, PayoutDomainModule, ReconciliationModule, SettlementCloseStatusModule],
  providers: SERVICES,
  exports: [SettlementIngestor, SettlementReportService, SettlementDayCloser, SettlementMetrics, SettlementCloseStatusModule, ReconciliationModule],
})
export class SettlementModule {}

/** The worker's part: the module above plus the schedule (the metrics register on the worker's /metrics). */
@Module({
  imports: [SettlementModule],
  providers: [SettlementScheduler],
  exports: [SettlementScheduler, SettlementModule],
})
export class SettlementWorkerModule {}
