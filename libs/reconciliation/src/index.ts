export * from './reconciliation-exception.js';
export { ReconciliationExceptionsRepository } from './persistence/reconciliation-exceptions.repository.js';
export { ReconciliationModule } from './reconciliation.module.js';
export * from './exception-desk.js';
export { ExceptionDeskRepository } from './persistence/exception-desk.repository.js';
