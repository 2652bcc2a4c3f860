import { Injectable } from '@nestjs/common';
import type { Queryable } from '#database';
import type { ExceptionDeskFilter, ExceptionDeskItem, ExceptionEvidenceLine, ExceptionNote, ExceptionResolution } from './exception-desk.js';
import { ExceptionDeskRepository } from './persistence/exception-desk.repository.js';

/**
 * The staff exception desk's reads and writes of reconciliation exceptions (owner, notes,
 * resolution, evidence lines), for `#staff`, which decides who may do what. Every write takes
 * the caller's transaction, so it commits with the staff audit record.
 */
@Injectable()
export class ReconciliationExceptionDeskService {
  constructor(private readonly desk: ExceptionDeskRepository) {}

  /** Open exceptions oldest first (the queue); resolved ones most recently resolved first. */
  list(filter?: ExceptionDeskFilter): Promise<ExceptionDeskItem[]> {
    return this.desk.list(filter);
  }

  get(id: string, manager?: Queryable): Promise<ExceptionDeskItem | null> {
    return this.desk.get(id, manager);
  }

  /** The exception, its row locked until the caller's commit (every decision about it takes this first). */
  lock(manager: Queryable, id: string): Promise<ExceptionDeskItem | null> {
    return this.desk.lock(manager, id);
  }

  /** Sets the owner of an open exception only if it is still owned by `expected`; false when refused. */
  setOwner(manager: Queryable, id: string, owner: string | null, expected: string | null): Promise<boolean> {
    return this.desk.setOwner(manager, id, owner, expected);
  }

  /** Closes an open exception with its named resolution; false when it was not open (any more). */
  resolve(manager: Queryable, id: string, resolution: ExceptionResolution): Promise<boolean> {
    return this.desk.resolve(manager, id, resolution);
  }

  addNote(manager: Queryable, exceptionId: string, author: { staffUserId: string; label: string }, body: string): Promise<string> {
    return this.desk.addNote(manager, exceptionId, author, body);
  }

  notes(exceptionId: string): Promise<ExceptionNote[]> {
    return this.desk.notes(exceptionId);
  }

  /** The settlement lines that raised the exception, and every line about its record, oldest first. */
  lines(exception: Pick<ExceptionDeskItem, 'id' | 'payoutId' | 'purchaseTransactionId'>): Promise<ExceptionEvidenceLine[]> {
    return this.desk.lines(exception);
  }
}
