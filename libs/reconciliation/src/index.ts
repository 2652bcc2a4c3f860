export * from './reconciliation-exception.js';
export { ReconciliationExceptionsRepository } from './reconciliation-exceptions.repository.js';
export { ReconciliationModule } from './reconciliation.module.js';
