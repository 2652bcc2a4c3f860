import { Injectable } from '@nestjs/common';
import sql, { empty, join, raw, type Sql } from 'sql-template-tag';
import { DataSource } from 'typeorm';
import { TurnBatcher, updateReturning, type Queryable } from '#database';
import { webhookEventWithJobsCtes, type PurchaseWebhookEvent } from '#webhooks';
import type { ClaimedTransactionRecord, LockedTransactionRecord, SubmissionRecord, TransactionRecord } from '../model/transaction-record.js';
import { sourcesOf, type TransactionStatus } from '../model/transaction-status.js';
import type { TransactionView } from '../model/transaction-view.js';
import { ADMISSION_LEFT, admitStatement, type AdmissionRequest, type TriedAdmission } from './admission-statement.js';
import { admissionError } from './admission-refusal.js';
import { TRANSACTION, TRANSACTION_VIEW, TRANSACTION_VIEW_ALONGSIDE, TRANSACTION_VIEW_JSON } from './transaction-shapes.js';
import { batchStatement, shapeOf, type UnlockedWrite } from './unlocked-write-batches.js';

/** One status move's event row, written with the move (TransactionRepository.write). */
export interface StatusEvent {
  from: TransactionStatus;
  to: TransactionStatus;
  providerStatus: string | null;
  reason: string;
}

/**
 * The transaction aggregate itself (`purchase_transactions`): the admission, the domain's reads
 * by id and the recordings' guarded writes. Every statement here is one round trip of a hot path;
 * they are kept exactly as measured (docs/BENCHMARKS.md): CTEs stay single statements.
 */
@Injectable()
export class TransactionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The whole admission in one statement and one round trip, outside any explicit transaction:
   * purchase_admit (migration 1763781500000) claims the key, locks the quote and the vendor's
   * spend controls, checks and consumes in that order, and writes the quote's use, the
   * transaction, its first status event and its outbox row; a refusal rolls all of it back and
   * becomes its domain error here. Answers the admitted transaction, or for a replay of the key
   * the stored one (its id is not `transactionId`); undefined if a replayed key's transaction is
   * gone.
   */
  async admit(request: AdmissionRequest): Promise<TransactionView | undefined> {
    try {
      const [row] = await this.dataSource.query<object[]>(...admitStatement(request));
      return row ? TRANSACTION_VIEW.read(row) : undefined;
    } catch (error) {
      throw admissionError(error);
    }
  }

  /**
   * POST /transactions/validate: the very admission statement of `admit` (purchase_admit), run
   * inside a transaction that is always rolled back. Running the real statement rather than a
   * read-only copy of its checks is what makes the dry run refuse exactly as the real call does,
   * in its order and with its details (velocity's Retry-After, the cap's remaining), with no
   * second list of rules to keep in step: a check added to purchase_admit is a check of the dry
   * run too. The price is the admission's locks (key, quote, the vendor's spend controls), held
   * for one more round trip until the rollback, as a concurrent real request of the vendor would
   * hold them. The key claim, the quote's use, the allowance, the transaction, its event and its
   * outbox row never commit, so nothing is submitted or counted (sequence numbers the insert drew
   * are skipped, as after any rolled-back insert). For an admission, what is left once it is
   * counted is read inside the same transaction; a replay counts nothing.
   */
  async admitRolledBack(request: AdmissionRequest): Promise<TriedAdmission | undefined> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const [row] = (await runner.query(...admitStatement(request))) as object[];
      if (!row) return undefined;
      const transaction = TRANSACTION_VIEW.read(row);
      if (transaction.id !== request.transactionId) return { transaction, left: null };
      const [left] = (await runner.query(
        `SELECT ${ADMISSION_LEFT.columns} FROM purchase_transactions t
           JOIN purchase_spend_controls c ON c.vendor_id = t.vendor_id
           JOIN purchase_daily_allowances a ON a.vendor_id = t.vendor_id AND a.day = t.admission_day
          WHERE t.id = $1`,
        [request.transactionId],
      )) as object[];
      return { transaction, left: ADMISSION_LEFT.read(left) };
    } catch (error) {
      throw admissionError(error);
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
  }

  /** The status alone (staff's review tools), read in the caller's transaction. */
  async status(manager: Queryable, transactionId: string): Promise<TransactionStatus | undefined> {
    const [row] = await manager.query<{ status: TransactionStatus }[]>(`SELECT id, status FROM purchase_transactions WHERE id = $1`, [transactionId]);
    return row?.status;
  }

  async record(transactionId: string): Promise<TransactionRecord | undefined> {
    const rows = await this.dataSource.query<object[]>(`SELECT ${TRANSACTION.columns} FROM purchase_transactions t WHERE t.id = $1`, [transactionId]);
    return TRANSACTION.first(rows) ?? undefined;
  }

  async recordByProviderTransactionId(providerTransactionId: string): Promise<TransactionRecord | undefined> {
    const rows = await this.dataSource.query<object[]>(`SELECT ${TRANSACTION.columns} FROM purchase_transactions t WHERE t.provider_transaction_id = $1`, [
      providerTransactionId,
    ]);
    return TRANSACTION.first(rows) ?? undefined;
  }

  /** The row under its lock, with the database's clock read in the same statement. */
  async lockRecord(manager: Queryable, transactionId: string): Promise<LockedTransactionRecord | undefined> {
    const [row] = await manager.query<(object & { now: Date })[]>(`SELECT ${TRANSACTION.columns}, now() AS now FROM purchase_transactions t WHERE t.id = $1 FOR UPDATE`, [
      transactionId,
    ]);
    return row ? { ...TRANSACTION.read(row), now: row.now } : undefined;
  }

  async forSubmission(transactionId: string): Promise<SubmissionRecord | undefined> {
    const [row] = await this.dataSource.query<(object & { pricing_kind: string })[]>(
      `SELECT ${TRANSACTION.columns}, p.pricing_kind
         FROM purchase_transactions t JOIN purchase_products p ON p.id = t.product_id
        WHERE t.id = $1`,
      [transactionId],
    );
    return row ? { ...TRANSACTION.read(row), pricingKind: row.pricing_kind } : undefined;
  }

  /**
   * Writes the collected column changes of one recording as ONE statement: the
   * `UPDATE ... RETURNING` alone, or with CTEs (one round trip, sharing the statement's snapshot)
   * for the status events of the moves it carries (in order) and the callback markers it
   * answered (`consumeMarkersUpTo`). A recording that moves the status is a guarded move: the
   * UPDATE applies only from a status its first move may come from (the status table's
   * `sourcesOf`); the caller holds the row's lock, so a refused guard is a broken invariant and
   * throws (rolling the recording back, the status events with it). With `withView`, the RETURNING
   * also carries the transaction as GET /transactions/{id} returns it after the write, for the
   * moves' webhook events.
   */
  async write(
    manager: Queryable,
    transactionId: string,
    changes: ReadonlyMap<string, unknown>,
    events: readonly StatusEvent[],
    options: { consumeMarkersUpTo?: string | null; withView?: boolean } = {},
  ): Promise<{ record: TransactionRecord; view?: TransactionView }> {
    const returning = options.withView ? raw(`${TRANSACTION.columns}, ${TRANSACTION_VIEW_ALONGSIDE.columns}`) : raw(TRANSACTION.columns);
    const { update, ctes } = writeParts(transactionId, changes, events, options.consumeMarkersUpTo, returning);
    const [row] = await updateReturning<object>(manager, withCtes(update, ctes));
    if (!row) throw await this.refusedWrite(manager, transactionId, events.length > 0 ? events[0].to : null);
    return { record: TRANSACTION.read(row), view: options.withView ? TRANSACTION_VIEW_ALONGSIDE.read(row) : undefined };
  }

  /**
   * `write` without the row's lock, as ONE statement that is its whole database transaction (no
   * BEGIN, no COMMIT): it applies only while the row is still the version a claim read (`version`,
   * its xmin, which every write of the row moves), and its one status move's webhook event (with the
   * event's deliveries and their jobs) is written by the same statement, the event's data the row as
   * the vendor reads it after the write (TRANSACTION_VIEW_JSON). Undefined, having written nothing
   * at all, when the row has moved on since the claim: the caller records under the lock instead.
   */
  async writeIfUnchanged(
    claimed: Pick<ClaimedTransactionRecord, 'id' | 'vendorId' | 'version'>,
    changes: ReadonlyMap<string, unknown>,
    move: StatusEvent | undefined,
    consumeMarkersUpTo: string | null | undefined,
  ): Promise<TransactionRecord | undefined> {
    const write: UnlockedWrite = { id: claimed.id, vendorId: claimed.vendorId, version: claimed.version, changes, move, consumeMarkersUpTo };
    let shape = shapeOf(write);
    if (shape === null) return (await this.writeUnlocked([write]))[0];
    // Two writes of one transaction in a turn go to separate statements: at most one can match its version.
    if (this.unlockedWrites.has(shape, (other) => other.id === write.id)) shape = `${shape}|${write.version}`;
    return this.unlockedWrites.add(write, shape);
  }

  /**
   * writeIfUnchanged's writes of one event-loop turn, one statement per shape (TurnBatcher): a
   * group of one is the single-row statement below, several are batchStatement's. Either way each
   * row is written, with everything that goes with it, only at the version its claim read.
   */
  private readonly unlockedWrites = new TurnBatcher<UnlockedWrite, TransactionRecord | undefined>((writes) => this.writeUnlocked(writes));

  private async writeUnlocked(writes: readonly UnlockedWrite[]): Promise<(TransactionRecord | undefined)[]> {
    const returning = raw(`${TRANSACTION.columns}, ${TRANSACTION_VIEW_JSON} AS "viewJson"`);
    let statement: Sql;
    if (writes.length > 1) statement = batchStatement(writes, returning, sql`u."viewJson"`);
    else {
      const [{ id, vendorId, version, changes, move, consumeMarkersUpTo }] = writes;
      const { update, ctes } = writeParts(id, changes, move ? [move] : [], consumeMarkersUpTo, returning, version);
      if (move) {
        const event = { vendorId, type: `transaction.${move.to}` as PurchaseWebhookEvent, resourceId: id };
        ctes.push(webhookEventWithJobsCtes(event, sql`(SELECT "viewJson" FROM updated)`, WRITTEN));
      }
      statement = withCtes(update, ctes);
    }
    const written = new Map((await updateReturning<object>(this.dataSource, statement)).map((row) => TRANSACTION.read(row)).map((record) => [record.id, record]));
    return writes.map((write) => written.get(write.id));
  }

  /**
   * Why `write` got no row back: the transaction does not exist, or (for a move) its status is not
   * one the move may come from. Read only on this failure path, in the caller's transaction.
   */
  private async refusedWrite(manager: Queryable, transactionId: string, move: TransactionStatus | null): Promise<Error> {
    const status = move ? await this.status(manager, transactionId) : undefined;
    if (!move || status === undefined) return new Error(`transaction ${transactionId} does not exist`);
    return new Error(`transaction ${transactionId} is ${status}: the status guard refused its move to ${move}, which may come only from ${sourcesOf(move).join(', ')}`);
  }
}

/** A recording's other CTEs write only if its UPDATE did: always under the row lock, not when an unlocked write finds the row moved on. */
const WRITTEN = sql`EXISTS (SELECT 1 FROM updated)`;

/**
 * The parts of a recording's statement: the `UPDATE ... RETURNING` alone, and the CTEs (one round
 * trip, sharing the statement's snapshot) for the status events of the moves it carries (in order)
 * and the callback markers it answered (`consumeMarkersUpTo`), each writing only if the UPDATE
 * did. A move is guarded: the UPDATE applies only from a status its first move may come from (the
 * status table's `sourcesOf`), and with `version` only to the row version given. Column names are
 * the only raw text: the recording's own column keys, checked to be plain identifiers; every
 * value is bound.
 */
function writeParts(
  transactionId: string,
  changes: ReadonlyMap<string, unknown>,
  events: readonly StatusEvent[],
  consumeMarkersUpTo: string | null | undefined,
  returning: Sql,
  version?: string,
): { update: Sql; ctes: Sql[] } {
  const assignments = join([...changes].map(([column, value]) => sql`${columnName(column)} = ${value}`), ', ');
  const move = events.length > 0 ? events[0].to : null;
  // The guard binds every status the table lets `to` be reached from, `status = ANY(sourcesOf(to))`, as
  // payout's moveStatus does (guardedSources(to) without a narrower `from`); not the first event's `from`.
  const guard = move ? sql` AND t.status = ANY(${sourcesOf(move)}::text[])` : empty;
  const unchanged = version === undefined ? empty : sql` AND t.xmin = ${version}::xid`;
  // The id is bound at each use rather than shared through a CTE: the UPDATE keeps its plain
  // primary-key lookup, as measured (docs/BENCHMARKS.md).
  const update = sql`UPDATE purchase_transactions t SET ${assignments} WHERE t.id = ${transactionId}::uuid${guard}${unchanged} RETURNING ${returning}`;
  const ctes: Sql[] = [];
  if (events.length > 0) {
    const [from, to, providerStatus, reason] = [events.map((e) => e.from), events.map((e) => e.to), events.map((e) => e.providerStatus), events.map((e) => e.reason)];
    ctes.push(sql`events AS (
            INSERT INTO purchase_transaction_events (transaction_id, from_status, to_status, provider_status, reason)
            SELECT ${transactionId}::uuid, e.from_status, e.to_status, e.provider_status, e.reason
              FROM unnest(${from}::text[], ${to}::text[], ${providerStatus}::text[], ${reason}::text[]) WITH ORDINALITY AS e(from_status, to_status, provider_status, reason, n)
             WHERE ${WRITTEN}
             ORDER BY e.n)`);
  }
  if (consumeMarkersUpTo) {
    // A data-modifying CTE runs to completion whether or not the query reads it.
    ctes.push(sql`markers AS (
            UPDATE purchase_callback_markers SET processed_at = now()
             WHERE transaction_id = ${transactionId}::uuid AND id <= ${consumeMarkersUpTo}::bigint AND processed_at IS NULL AND ${WRITTEN})`);
  }
  return { update, ctes };
}

/** The UPDATE alone, or as the CTE `updated` beside the others, answering its rows. */
function withCtes(update: Sql, ctes: readonly Sql[]): Sql {
  return ctes.length === 0 ? update : sql`WITH updated AS (${update}), ${join(ctes, ', ')} SELECT * FROM updated`;
}

/** A column of `purchase_transactions` as the raw text of an assignment: a plain lower-case identifier, or a programming error. */
function columnName(column: string): Sql {
  if (!/^[a-z][a-z0-9_]*$/.test(column)) throw new Error(`not a column name: ${JSON.stringify(column)}`);
  return raw(column);
}
