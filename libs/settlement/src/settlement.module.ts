import { Module } from '@nestjs/common';
import { PayoutDomainModule } from '#payout';
import { PurchaseDomainModule, PurchaseOutcomeRecorder, PurchaseTimings } from '#purchase';
import { ReconciliationModule } from '#reconciliation';
import { PayoutLineMatcher } from './payout-line-matcher.js';
import { SettlementRepository } from './persistence/settlement.repository.js';
import { PurchaseLineMatcher } from './purchase-line-matcher.js';
import { SettlementIngestor } from './settlement-ingestor.js';
import { SettlementMetrics } from './settlement-metrics.js';
import { SettlementReportService } from './settlement-report.service.js';
import { SettlementScheduler } from './settlement-scheduler.js';

const SERVICES = [SettlementRepository, PurchaseTimings, PurchaseOutcomeRecorder, PurchaseLineMatcher, PayoutLineMatcher, SettlementMetrics, SettlementIngestor, SettlementReportService];

/**
 * Settlement reports and their reconciliation, without a schedule: the ops CLI runs it on
 * demand. Its own PurchaseOutcomeRecorder instance is the same stateless class the worker uses
 * (all it holds is the data source and timings), so a line moves a purchase exactly as a lookup does.
 */
@Module({
  imports: [PurchaseDomainModule, PayoutDomainModule, ReconciliationModule],
  providers: SERVICES,
  exports: [SettlementIngestor, SettlementReportService],
})
export class SettlementModule {}

/** The worker's part: the module above plus the schedule (the metrics register on the worker's /metrics). */
@Module({
  imports: [SettlementModule],
  providers: [SettlementScheduler],
  exports: [SettlementScheduler],
})
export class SettlementWorkerModule {}
