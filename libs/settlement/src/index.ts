export * from './settlement-provider.js';
export { SettlementIngestor, type IngestSummary, type IngestOutcome } from './settlement-ingestor.js';
export { SettlementReportService } from './settlement-report.service.js';
export { SettlementScheduler } from './settlement-scheduler.js';
export { SettlementModule, SettlementWorkerModule, SettlementCloseStatusModule } from './settlement.module.js';
export { SettlementClock } from './settlement-clock.js';
export { SettlementDayCloser, type CloseOutcome } from './settlement-day-closer.js';
export { SettlementCloseStatus, type SettlementDayView, type DayBlockers } from './settlement-close-status.js';
