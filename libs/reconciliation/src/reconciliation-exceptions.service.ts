import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ReconciliationExceptionsRepository } from './persistence/reconciliation-exceptions.repository.js';
import type { RaiseReconciliationException, ReconciliationException } from './reconciliation-exception.js';

/**
 * What other libs and apps do with reconciliation exceptions: raise them (in the caller's
 * transaction, with the evidence that led to them), list them, count them and close them. The
 * repository stays this lib's own (lint rule local/no-foreign-repository).
 */
@Injectable()
export class ReconciliationExceptionsService {
  constructor(private readonly exceptions: ReconciliationExceptionsRepository) {}

  /** Records the exception unless an open one with the same dedupe key exists (then it joins it); true when it is new. */
  raise(exception: RaiseReconciliationException, manager?: Pick<EntityManager, 'query'>): Promise<boolean> {
    return this.exceptions.raise(exception, manager);
  }

  /** raise, answering the exception's id and key too (a resolved key is raised again as `<key>#2`, ...). */
  raiseAndName(exception: RaiseReconciliationException, manager?: Pick<EntityManager, 'query'>): Promise<{ id: string; raised: boolean; dedupeKey: string }> {
    return this.exceptions.raiseAndName(exception, manager);
  }

  /** Open exceptions, oldest first. */
  listOpen(limit?: number): Promise<ReconciliationException[]> {
    return this.exceptions.listOpen(limit);
  }

  /** Every exception raised from one day's settlement reports, or about records of that day. */
  listForReportDate(reportDate: string): Promise<ReconciliationException[]> {
    return this.exceptions.listForReportDate(reportDate);
  }

  /** Counts and age of the oldest open exception per domain and kind, for metrics. */
  openSummary(): Promise<{ domain: string; kind: string; open: number; oldestAgeSeconds: number }[]> {
    return this.exceptions.openSummary();
  }

  /** Staff close an exception with what they did about it; false if it was not open. */
  resolve(id: string, resolvedBy: string, resolution: string): Promise<boolean> {
    return this.exceptions.resolve(id, resolvedBy, resolution);
  }
}
