import { Module } from '@nestjs/common';
import { ExceptionDeskRepository } from './persistence/exception-desk.repository.js';
import { ReconciliationExceptionsRepository } from './persistence/reconciliation-exceptions.repository.js';
import { ReconciliationExceptionDeskService } from './exception-desk.service.js';
import { ReconciliationExceptionsService } from './reconciliation-exceptions.service.js';

/** Reconciliation exceptions, shared by both domains; needs the app's TypeORM data source. */
@Module({
  providers: [ReconciliationExceptionsRepository, ExceptionDeskRepository, ReconciliationExceptionsService, ReconciliationExceptionDeskService],
  // The repository stays exported while #purchase and #payout still inject it (issue 30 moves them to the service).
  exports: [ReconciliationExceptionsService, ReconciliationExceptionDeskService],
})
export class ReconciliationModule {}
