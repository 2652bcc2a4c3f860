export * from './settlement-provider.js';
export { SettlementIngestor, type IngestSummary, type IngestOutcome } from './settlement-ingestor.js';
export { SettlementReportService } from './settlement-report.service.js';
export { SettlementScheduler } from './settlement-scheduler.js';
export { SettlementModule, SettlementWorkerModule } from './settlement.module.js';
