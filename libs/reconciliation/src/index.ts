export * from './reconciliation-exception.js';
export { ReconciliationExceptionsService } from './reconciliation-exceptions.service.js';
export { ReconciliationModule } from './reconciliation.module.js';
export * from './exception-desk.js';
export { ReconciliationExceptionDeskService } from './exception-desk.service.js';
