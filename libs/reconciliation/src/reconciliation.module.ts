import { Module } from '@nestjs/common';
import { ExceptionDeskRepository } from './persistence/exception-desk.repository.js';
import { ReconciliationExceptionsRepository } from './persistence/reconciliation-exceptions.repository.js';

/** Reconciliation exceptions, shared by both domains; needs the app's TypeORM data source. */
@Module({
  providers: [ReconciliationExceptionsRepository, ExceptionDeskRepository],
  exports: [ReconciliationExceptionsRepository, ExceptionDeskRepository],
})
export class ReconciliationModule {}
