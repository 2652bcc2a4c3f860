import { Module } from '@nestjs/common';
import { ReconciliationExceptionsRepository } from './persistence/reconciliation-exceptions.repository.js';

/** Reconciliation exceptions, shared by both domains; needs the app's TypeORM data source. */
@Module({
  providers: [ReconciliationExceptionsRepository],
  exports: [ReconciliationExceptionsRepository],
})
export class ReconciliationModule {}
