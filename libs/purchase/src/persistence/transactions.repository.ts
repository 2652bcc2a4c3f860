import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { johannesburgDayRange } from '#common';
import { readShape, updateReturning, type Queryable, type ReadColumns } from '#database';
import { minorUnitsColumn } from '#money';
import { jobSpec, outboxBindValues } from '#queues';
import type { LockedTransactionState, TransactionEventView, TransactionState } from '../model/transaction-record.js';
import type { TransactionStatus } from '../model/transaction-status.js';
import type { SalesSummaryView, TransactionView } from '../model/transaction-view.js';
import { admissionError } from './admission-refusal.js';

/** Columns of TransactionState (alias `t`): what the worker, the sweeper and settlement decide on. */
const STATE_COLUMNS = `t.id, t.vendor_id, t.status, t.product_id, t.charge_cents, t.wholesale_cents, t.currency, t.destination_amount,
  t.destination_unit, t.identifiers, to_char(t.admission_day, 'YYYY-MM-DD') AS admission_day, t.created_at,
  t.submission_attempted_at, t.submission_ended_at, t.submission_outcome, t.provider_transaction_id, t.allowance_returned_at,
  t.not_found_streak, t.check_seq, t.next_check_at, t.reversal_watch_until`;

const iso = (value: Date | string) => new Date(value).toISOString();
const isoOrNull = (value: Date | string | null) => (value === null ? null : iso(value));

/** What every vendor-facing read selects (alias `t`): money in minor units, instants as ISO strings. */
const VIEW_FIELDS: ReadColumns<TransactionView> = {
  id: 't.id', reference: 't.reference', status: 't.status', product_id: 't.product_id', quote_id: 't.quote_id',
  charge_minor: minorUnitsColumn('t.charge_cents'), currency: 't.currency',
  destination_amount: 't.destination_amount', destination_unit: 't.destination_unit', error_code: 't.error_code',
  // Delivery data is only handed out while the purchase stands: never after a reversal.
  fulfilment_available: ["(t.status = 'completed' AND EXISTS (SELECT 1 FROM purchase_fulfilments f WHERE f.transaction_id = t.id))", (raw) => raw === true],
  created_at: ['t.created_at', iso], updated_at: ['t.updated_at', iso], completed_at: ['t.completed_at', isoOrNull], reversed_at: ['t.reversed_at', isoOrNull],
};
const VIEW = readShape<TransactionView>(VIEW_FIELDS);

/**
 * The same view returned next to the state by a recording's UPDATE (writeState), each field
 * aliased `view.<field>`: the webhook event of a status move needs it, and reading it back in
 * the UPDATE's RETURNING saves the SELECT that followed every move.
 */
const VIEW_PREFIX = 'view.';
const VIEW_ALONGSIDE = readShape<Record<string, unknown>>(Object.fromEntries(Object.entries(VIEW_FIELDS).map(([field, column]) => [`${VIEW_PREFIX}${field}`, column])));

/** One POST /transactions as purchase_admit takes it (migration 1763781500000). */
export interface AdmissionRequest {
  /** The id the transaction gets if this request is admitted; a replay answers another one. */
  transactionId: string;
  vendorId: string;
  idempotencyKey: string;
  quoteId: string;
  reference: string;
  /** The admission instant; null is the database's clock (always, outside tests: AdmissionClock). */
  instant: Date | null;
  /** Refuses an unreleased vendor (production only). */
  production: boolean;
  /** Refuses with PROVIDER_NOT_CONFIGURED, in the checks' order (production configuration incomplete). */
  unready: boolean;
}

/** What the dry run's admission would leave of the vendor's limits; null for a replay (nothing is counted). */
export interface TriedAdmission {
  transaction: TransactionView;
  left: AdmissionLeft | null;
}

export interface AdmissionLeft {
  remainingTodayMinor: number;
  velocityRemaining: number;
}

/** Read (alias `t` the admitted transaction, `c` its vendor's controls, `a` its day's allowance) with the admission's own window rule. */
const ADMISSION_LEFT = readShape<AdmissionLeft>({
  remainingTodayMinor: minorUnitsColumn('greatest(c.daily_cap_cents - a.used_cents, 0)::text'),
  velocityRemaining: 'greatest(c.velocity_count - purchase_admissions_since(t.vendor_id, t.created_at - make_interval(secs => c.velocity_window_seconds)), 0)::int',
});

/** purchase_admit's call (migration 1763781500000) and its parameters, for `admit` and its dry run. */
function admitStatement(request: AdmissionRequest): [string, unknown[]] {
  const job = jobSpec('purchase.submit', { transactionId: request.transactionId });
  return [
    `SELECT ${VIEW.columns} FROM purchase_admit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb) t`,
    [
      request.vendorId,
      request.idempotencyKey,
      request.quoteId,
      request.reference,
      request.transactionId,
      request.instant,
      request.production,
      request.unready,
      job.name,
      ...outboxBindValues(job),
    ],
  ];
}

export interface TransactionFilter {
  status?: TransactionStatus;
  reference?: string;
  productId?: number;
  /** Whole Africa/Johannesburg days (YYYY-MM-DD), by admission time. */
  dateFrom?: string;
  dateTo?: string;
  page: number;
  perPage: number;
}

/** A transaction about to be submitted, with its product's pricing kind. */
export interface SubmissionRecord extends TransactionState {
  pricing_kind: string;
}

/** One status move's event row, written with the move (writeStateWithEvents). */
export interface StatusEvent {
  from: TransactionStatus;
  to: TransactionStatus;
  providerStatus: string | null;
  reason: string;
}

export type SubmissionOutcome = 'accepted' | 'rejected' | 'http_error' | 'unknown';

/**
 * GET /reports/summary's figures from the `scoped` rows of salesSummary, money in minor units.
 * Net: the sales in the period not reversed since (completed minus reversed gross).
 */
const SALES_FIGURES = readShape<Omit<SalesSummaryView, 'date_from' | 'date_to' | 'currency'>>({
  completed_count: 'count(*) FILTER (WHERE sold_in_period)::int',
  completed_gross_minor: minorUnitsColumn('COALESCE(sum(charge_cents) FILTER (WHERE sold_in_period), 0)::text'),
  reversed_count: "count(*) FILTER (WHERE sold_in_period AND status = 'reversed')::int",
  reversed_gross_minor: minorUnitsColumn("COALESCE(sum(charge_cents) FILTER (WHERE sold_in_period AND status = 'reversed'), 0)::text"),
  net_minor: minorUnitsColumn("COALESCE(sum(charge_cents) FILTER (WHERE sold_in_period AND status <> 'reversed'), 0)::text"),
  pending_count: "count(*) FILTER (WHERE admitted_in_period AND status = 'pending')::int",
  review_count: "count(*) FILTER (WHERE admitted_in_period AND status = 'review')::int",
});

/** A purchase as staff see it in the back-office: across vendors, never a PIN. */
export interface PurchaseStaffItem {
  id: string;
  vendor_id: string;
  vendor_name: string;
  reference: string;
  status: TransactionStatus;
  product_id: number;
  charge_cents: string;
  currency: string;
  error_code: string | null;
  created_at: Date;
  /** When it entered review (else its admission). */
  waiting_since: Date;
  submission_attempted_at: Date | null;
  submission_ended_at: Date | null;
  submission_outcome: string | null;
  provider_transaction_id: string | null;
  provider_status: string | null;
  last_checked_at: Date | null;
  not_found_streak: number;
}

/** One recorded status move and what the provider said that caused it. */
export interface PurchaseStaffEvent extends TransactionEventView {
  provider_status: string | null;
}

const STAFF_ITEM_COLUMNS = `t.id, t.vendor_id, v.name AS vendor_name, t.reference, t.status, t.product_id, t.charge_cents::text AS charge_cents, t.currency, t.error_code,
  t.created_at, COALESCE(t.review_at, t.created_at) AS waiting_since, t.submission_attempted_at, t.submission_ended_at, t.submission_outcome,
  t.provider_transaction_id::text AS provider_transaction_id, t.provider_status, t.last_checked_at, t.not_found_streak`;

/**
 * The transaction aggregate: `purchase_transactions` with its status events, the provider's
 * callback markers and the fulfilment (delivery data and its read audit). The only code that
 * holds SQL on these tables. Every statement here is one round trip of a hot path or a staff
 * read; they are kept exactly as measured (docs/BENCHMARKS.md): CTEs stay single statements.
 */
@Injectable()
export class TransactionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  // --- admission ---

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
      return row ? VIEW.read(row) : undefined;
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
      const transaction = VIEW.read(row);
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

  // --- vendor-facing reads (always by vendor id) ---

  async view(vendorId: string, transactionId: string, manager: Queryable = this.dataSource): Promise<TransactionView | undefined> {
    return this.viewWhere(manager, 't.vendor_id = $1 AND t.id = $2', [vendorId, transactionId]);
  }

  async viewByReference(vendorId: string, reference: string): Promise<TransactionView | undefined> {
    return this.viewWhere(this.dataSource, 't.vendor_id = $1 AND t.reference = $2', [vendorId, reference]);
  }

  private async viewWhere(manager: Queryable, where: string, parameters: unknown[]): Promise<TransactionView | undefined> {
    const [row] = await manager.query<object[]>(`SELECT ${VIEW.columns} FROM purchase_transactions t WHERE ${where}`, parameters);
    return row ? VIEW.read(row) : undefined;
  }

  /** One page, newest first, and the total that matches the filter. */
  async list(vendorId: string, filter: TransactionFilter): Promise<{ items: TransactionView[]; total: number }> {
    const conditions = ['t.vendor_id = $1'];
    const parameters: unknown[] = [vendorId];
    const add = (sql: string, value: unknown) => {
      parameters.push(value);
      conditions.push(sql.replace('?', `$${parameters.length}`));
    };
    if (filter.status) add('t.status = ?', filter.status);
    if (filter.reference) add('t.reference = ?', filter.reference);
    if (filter.productId !== undefined) add('t.product_id = ?', filter.productId);
    if (filter.dateFrom) add('t.created_at >= ?', johannesburgDayRange(filter.dateFrom).start);
    if (filter.dateTo) add('t.created_at < ?', johannesburgDayRange(filter.dateTo).endExclusive);
    const where = conditions.join(' AND ');
    const [{ total }] = await this.dataSource.query<{ total: number }[]>(`SELECT count(*)::int AS total FROM purchase_transactions t WHERE ${where}`, parameters);
    const rows = await this.dataSource.query<object[]>(
      `SELECT ${VIEW.columns} FROM purchase_transactions t WHERE ${where}
        ORDER BY t.created_at DESC, t.id LIMIT $${parameters.length + 1} OFFSET $${parameters.length + 2}`,
      [...parameters, filter.perPage, (filter.page - 1) * filter.perPage],
    );
    return { items: rows.map(VIEW.read), total };
  }

  /** The vendor's own transaction's status moves, oldest first; empty for another vendor's id. */
  async history(vendorId: string, transactionId: string): Promise<TransactionEventView[]> {
    return this.dataSource.query<TransactionEventView[]>(
      `SELECT e.from_status, e.to_status, e.reason, e.created_at FROM purchase_transaction_events e
         JOIN purchase_transactions t ON t.id = e.transaction_id WHERE t.vendor_id = $1 AND t.id = $2 ORDER BY e.id`,
      [vendorId, transactionId],
    );
  }

  // --- staff reads (the back-office review queue: across vendors) ---

  /** Purchases waiting in `review`, oldest first (partial index of migration 1763781300000). */
  async reviewQueue(limit: number): Promise<PurchaseStaffItem[]> {
    return this.dataSource.query<PurchaseStaffItem[]>(
      `SELECT ${STAFF_ITEM_COLUMNS} FROM purchase_transactions t JOIN vendors v ON v.id = t.vendor_id
        WHERE t.status = 'review' ORDER BY COALESCE(t.review_at, t.created_at), t.id LIMIT $1`,
      [limit],
    );
  }

  /** How many purchases wait in `review` and how long the oldest has (seconds; 0 when none). */
  async reviewDepth(): Promise<{ count: number; oldestAgeSeconds: number }> {
    const [row] = await this.dataSource.query<{ count: number; oldest: number }[]>(
      `SELECT count(*)::int AS count, COALESCE(EXTRACT(EPOCH FROM now() - min(COALESCE(review_at, created_at))), 0)::float8 AS oldest
         FROM purchase_transactions WHERE status = 'review'`,
    );
    return { count: row.count, oldestAgeSeconds: Math.max(0, Math.floor(row.oldest)) };
  }

  async staffItem(transactionId: string, manager: Queryable = this.dataSource): Promise<PurchaseStaffItem | undefined> {
    const [row] = await manager.query<PurchaseStaffItem[]>(`SELECT ${STAFF_ITEM_COLUMNS} FROM purchase_transactions t JOIN vendors v ON v.id = t.vendor_id WHERE t.id = $1`, [
      transactionId,
    ]);
    return row;
  }

  /**
   * The back-office search, across vendors: the purchase with this id (`id`, a UUID or null) and
   * those whose reference starts with `referencePattern` (a LIKE pattern, backslash escaping; the
   * text_pattern_ops index of migration 1763783600000), newest first.
   */
  async staffSearch(id: string | null, referencePattern: string, limit: number): Promise<PurchaseStaffItem[]> {
    return this.dataSource.query<PurchaseStaffItem[]>(
      `SELECT ${STAFF_ITEM_COLUMNS} FROM purchase_transactions t JOIN vendors v ON v.id = t.vendor_id
        WHERE t.id = $1::uuid OR t.reference LIKE $2 ESCAPE '\\' ORDER BY t.created_at DESC, t.id DESC LIMIT $3`,
      [id, referencePattern, limit],
    );
  }

  /** Every recorded status move of a transaction with the provider's status behind it, oldest first. */
  async staffHistory(transactionId: string): Promise<PurchaseStaffEvent[]> {
    return this.dataSource.query<PurchaseStaffEvent[]>(
      `SELECT from_status, to_status, provider_status, reason, created_at FROM purchase_transaction_events WHERE transaction_id = $1 ORDER BY id`,
      [transactionId],
    );
  }

  /** Whole Africa/Johannesburg days as instants; a null end leaves that end of the period open. */
  async salesSummary(vendorId: string, from: Date | null, to: Date | null) {
    const [row] = await this.dataSource.query<object[]>(
      `WITH scoped AS (
         SELECT status, charge_cents, completed_at, created_at,
                (completed_at IS NOT NULL AND ($2::timestamptz IS NULL OR completed_at >= $2) AND ($3::timestamptz IS NULL OR completed_at < $3)) AS sold_in_period,
                (($2::timestamptz IS NULL OR created_at >= $2) AND ($3::timestamptz IS NULL OR created_at < $3)) AS admitted_in_period
           FROM purchase_transactions WHERE vendor_id = $1)
       SELECT ${SALES_FIGURES.columns} FROM scoped`,
      [vendorId, from, to],
    );
    return SALES_FIGURES.read(row);
  }

  // --- velocity (the vendor dashboard's spend page) ---

  /** The vendor's admissions with `created_at > windowStart`, exactly, as the admission's velocity check counts them (purchase_admissions_since). */
  async admissionsSince(manager: Queryable, vendorId: string, windowStart: Date): Promise<number> {
    const [{ count }] = await manager.query<{ count: string }[]>(`SELECT purchase_admissions_since($1, $2) AS count`, [vendorId, windowStart]);
    return Number(count);
  }

  // --- worker: state, submission, verification schedule ---

  /** The status alone (staff's review tools), read in the caller's transaction. */
  async status(manager: Queryable, transactionId: string): Promise<TransactionStatus | undefined> {
    const [row] = await manager.query<{ status: TransactionStatus }[]>(`SELECT id, status FROM purchase_transactions WHERE id = $1`, [transactionId]);
    return row?.status;
  }

  async state(transactionId: string): Promise<TransactionState | undefined> {
    const [row] = await this.dataSource.query<TransactionState[]>(`SELECT ${STATE_COLUMNS} FROM purchase_transactions t WHERE t.id = $1`, [transactionId]);
    return row;
  }

  async stateByProviderTransactionId(providerTransactionId: string): Promise<TransactionState | undefined> {
    const [row] = await this.dataSource.query<TransactionState[]>(`SELECT ${STATE_COLUMNS} FROM purchase_transactions t WHERE t.provider_transaction_id = $1`, [
      providerTransactionId,
    ]);
    return row;
  }

  /** The row under its lock, with the database's clock read in the same statement. */
  async lockState(manager: Queryable, transactionId: string): Promise<LockedTransactionState | undefined> {
    const [row] = await manager.query<LockedTransactionState[]>(`SELECT ${STATE_COLUMNS}, now() AS now FROM purchase_transactions t WHERE t.id = $1 FOR UPDATE`, [
      transactionId,
    ]);
    return row;
  }

  /**
   * Writes the collected column changes of one recording as ONE statement: the
   * `UPDATE ... RETURNING` alone, or with CTEs (one round trip, sharing the statement's snapshot)
   * for the status events of the moves it carries (in order) and the callback markers it
   * answered (`consumeMarkersUpTo`). With `withView`, the RETURNING also carries the transaction
   * as GET /transactions/{id} returns it after the write, for the moves' webhook events.
   */
  async writeState(
    manager: Queryable,
    transactionId: string,
    changes: ReadonlyMap<string, unknown>,
    events: readonly StatusEvent[],
    options: { consumeMarkersUpTo?: string | null; withView?: boolean } = {},
  ): Promise<{ state: TransactionState; view?: TransactionView }> {
    const columns = [...changes.keys()];
    const parameters: unknown[] = [transactionId, ...changes.values()];
    const assignments = columns.map((column, index) => `${column} = $${index + 2}`).join(', ');
    const update = `UPDATE purchase_transactions t SET ${assignments} WHERE t.id = $1 RETURNING ${STATE_COLUMNS}${options.withView ? `, ${VIEW_ALONGSIDE.columns}` : ''}`;
    const ctes: string[] = [];
    if (events.length > 0) {
      const next = parameters.length + 1;
      parameters.push(
        events.map((event) => event.from),
        events.map((event) => event.to),
        events.map((event) => event.providerStatus),
        events.map((event) => event.reason),
      );
      ctes.push(`events AS (
              INSERT INTO purchase_transaction_events (transaction_id, from_status, to_status, provider_status, reason)
              SELECT $1, e.from_status, e.to_status, e.provider_status, e.reason
                FROM unnest($${next}::text[], $${next + 1}::text[], $${next + 2}::text[], $${next + 3}::text[]) WITH ORDINALITY AS e(from_status, to_status, provider_status, reason, n)
               ORDER BY e.n)`);
    }
    if (options.consumeMarkersUpTo) {
      parameters.push(options.consumeMarkersUpTo);
      // A data-modifying CTE runs to completion whether or not the query reads it.
      ctes.push(`markers AS (
              UPDATE purchase_callback_markers SET processed_at = now() WHERE transaction_id = $1 AND id <= $${parameters.length} AND processed_at IS NULL)`);
    }
    const sql = ctes.length === 0 ? update : `WITH updated AS (${update}), ${ctes.join(', ')} SELECT * FROM updated`;
    const [row] = await updateReturning<Record<string, unknown>>(manager, sql, parameters);
    if (!options.withView) return { state: row as unknown as TransactionState };
    const view = Object.fromEntries(Object.entries(VIEW_ALONGSIDE.read(row)).map(([field, value]) => [field.slice(VIEW_PREFIX.length), value])) as unknown as TransactionView;
    const state = Object.fromEntries(Object.entries(row).filter(([column]) => !column.startsWith(VIEW_PREFIX))) as unknown as TransactionState;
    return { state, view };
  }

  async forSubmission(transactionId: string): Promise<SubmissionRecord | undefined> {
    const [row] = await this.dataSource.query<SubmissionRecord[]>(
      `SELECT ${STATE_COLUMNS}, p.pricing_kind
         FROM purchase_transactions t JOIN purchase_products p ON p.id = t.product_id
        WHERE t.id = $1`,
      [transactionId],
    );
    return row;
  }

  /** The provider already held the transaction when we looked it up before creating it. */
  async markFoundBeforeCreate(transactionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE purchase_transactions SET submission_outcome = 'found_before_create' WHERE id = $1 AND submission_outcome IS NULL`, [
      transactionId,
    ]);
  }

  /**
   * Claims the one create attempt; false when it is no longer ours to make. next_check_at is a
   * safety net: if this process dies during the create, the sweeper finds the transaction overdue
   * and the lookups take over.
   *
   * The row is locked by its primary key and the claim's conditions are checked on the locked
   * row. Written as `UPDATE ... WHERE id = $1 AND status = 'pending' AND ...`, the conditions
   * match the predicate of purchase_transactions_unsubmitted_idx and the planner may scan that
   * whole index for the id: one claim then costs O(backlog), measured at 2 ms with 2,700
   * purchases waiting, and the worker slows down exactly when a backlog builds up.
   */
  async claimSubmission(transactionId: string, safetyNetMs: number): Promise<boolean> {
    const claimed = await updateReturning<{ id: string }>(
      this.dataSource,
      `WITH locked AS (SELECT id, status, submission_attempted_at, provider_transaction_id FROM purchase_transactions WHERE id = $1 FOR UPDATE)
       UPDATE purchase_transactions t SET submission_attempted_at = now(), next_check_at = now() + make_interval(secs => $2::double precision / 1000)
         FROM locked
        WHERE t.id = locked.id AND locked.status = 'pending' AND locked.submission_attempted_at IS NULL AND locked.provider_transaction_id IS NULL
        RETURNING t.id`,
      [transactionId, safetyNetMs],
    );
    return claimed.length > 0;
  }

  /** Nothing left this process: the claim is released so a later job may submit. */
  async releaseSubmissionClaim(transactionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE purchase_transactions SET submission_attempted_at = NULL WHERE id = $1`, [transactionId]);
  }

  /** The attempt's outcome and the first check of the polling chain, in one statement; returns that check's sequence. */
  async recordSubmissionAttempt(
    transactionId: string,
    attempt: { outcome: SubmissionOutcome; providerTransactionId: number | null; providerStatus: string | null; firstCheckDelayMs: number },
  ): Promise<number> {
    const [scheduled] = await updateReturning<{ check_seq: number }>(
      this.dataSource,
      `UPDATE purchase_transactions SET submission_ended_at = now(), submission_outcome = $2,
         provider_transaction_id = COALESCE(provider_transaction_id, $3), provider_status = COALESCE($4, provider_status),
         check_seq = check_seq + 1, next_check_at = now() + make_interval(secs => $5::double precision / 1000)
        WHERE id = $1 RETURNING check_seq`,
      [transactionId, attempt.outcome, attempt.providerTransactionId, attempt.providerStatus, attempt.firstCheckDelayMs],
    );
    return scheduled.check_seq;
  }

  /** Starts the next check of the polling chain; returns its sequence. */
  async scheduleCheck(transactionId: string, delayMs: number): Promise<number> {
    const [row] = await updateReturning<{ check_seq: number }>(
      this.dataSource,
      `UPDATE purchase_transactions SET check_seq = check_seq + 1, next_check_at = now() + make_interval(secs => $2::double precision / 1000)
        WHERE id = $1 RETURNING check_seq`,
      [transactionId, delayMs],
    );
    return row.check_seq;
  }

  async stopChecks(transactionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE purchase_transactions SET next_check_at = NULL WHERE id = $1`, [transactionId]);
  }

  // --- sweeper ---

  /** Checks overdue by more than `slackSeconds`, re-issued under a new sequence (rows another sweep holds are skipped). */
  async reissueOverdueChecks(slackSeconds: number, limit: number): Promise<{ id: string; check_seq: number }[]> {
    return updateReturning<{ id: string; check_seq: number }>(
      this.dataSource,
      `UPDATE purchase_transactions SET check_seq = check_seq + 1, next_check_at = now()
        WHERE id IN (SELECT id FROM purchase_transactions
                      WHERE next_check_at < now() - make_interval(secs => $1) AND status IN ('pending', 'completed')
                      ORDER BY next_check_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, check_seq`,
      [slackSeconds, limit],
    );
  }

  /** Admitted more than `slackSeconds` ago, never claimed for submission, and no undispatched outbox row will submit them. */
  async unsubmitted(slackSeconds: number, limit: number): Promise<string[]> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      `SELECT t.id FROM purchase_transactions t
        WHERE t.status = 'pending' AND t.submission_attempted_at IS NULL AND t.provider_transaction_id IS NULL
          AND t.created_at < now() - make_interval(secs => $1)
          AND NOT EXISTS (SELECT 1 FROM outbox_messages o WHERE o.dispatched_at IS NULL AND o.job_name = 'purchase.submit' AND o.payload->>'transactionId' = t.id::text)
        ORDER BY t.created_at LIMIT $2`,
      [slackSeconds, limit],
    );
    return rows.map((row) => row.id);
  }

  // --- settlement ---

  /**
   * Purchases settled (completed) or reversed in [from, to) that no line of the settlement report
   * names, with their wholesale amount and the provider's id as the report would carry them.
   */
  async closedWithoutSettlementLine(
    reportId: string,
    from: Date,
    to: Date,
  ): Promise<{ id: string; vendor_id: string; status: TransactionStatus; amount_cents: string; provider_reference: string | null }[]> {
    return this.dataSource.query(
      `SELECT t.id, t.vendor_id, t.status, t.wholesale_cents::text AS amount_cents, t.provider_transaction_id::text AS provider_reference
         FROM purchase_transactions t
        WHERE t.status IN ('completed', 'reversed')
          AND ((t.completed_at >= $2 AND t.completed_at < $3) OR (t.status = 'reversed' AND t.reversed_at >= $2 AND t.reversed_at < $3))
          AND NOT EXISTS (SELECT 1 FROM settlement_lines l WHERE l.report_id = $1 AND l.purchase_transaction_id = t.id)`,
      [reportId, from, to],
    );
  }

  // --- provider callbacks (hints) ---

  /**
   * Leaves a durable marker for a callback of the transaction named by either id and, unless an
   * earlier marker is still open (its verification is still waiting), its verification job's
   * outbox row: one statement, purchase_callback_hint (migration 1763781700000), which holds a
   * per-transaction advisory lock to its commit so a burst yields exactly one waiting job.
   * False when neither id names a transaction we hold.
   */
  async addCallbackMarker(externalId: string | null, providerTransactionId: number | null, hint: string | null): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(`SELECT transaction_id, marker_id, job_id FROM purchase_callback_hint($1, $2, $3)`, [
      externalId,
      providerTransactionId,
      hint,
    ]);
    return rows.length > 0;
  }

  /**
   * The state and the newest callback marker no lookup has answered, in one read: what a
   * callback's verification starts from (one round trip instead of two).
   */
  async stateWithOpenMarker(transactionId: string): Promise<(TransactionState & { open_marker: string | null }) | undefined> {
    const [row] = await this.dataSource.query<(TransactionState & { open_marker: string | null })[]>(
      `SELECT ${STATE_COLUMNS},
              (SELECT max(m.id) FROM purchase_callback_markers m WHERE m.transaction_id = t.id AND m.processed_at IS NULL) AS open_marker
         FROM purchase_transactions t WHERE t.id = $1`,
      [transactionId],
    );
    return row;
  }

  /** Marks the markers up to `upTo` as processed (in the caller's transaction when given). */
  async consumeMarkers(transactionId: string, upTo: string, manager: Queryable = this.dataSource): Promise<void> {
    await manager.query(`UPDATE purchase_callback_markers SET processed_at = now() WHERE transaction_id = $1 AND id <= $2 AND processed_at IS NULL`, [
      transactionId,
      upTo,
    ]);
  }

  /** Per transaction, the first marker no lookup has answered, received more than `slackSeconds` ago. */
  async openCallbackMarkers(slackSeconds: number, limit: number): Promise<{ transaction_id: string; first_marker: string }[]> {
    return this.dataSource.query<{ transaction_id: string; first_marker: string }[]>(
      `SELECT transaction_id, min(id) AS first_marker FROM purchase_callback_markers
        WHERE processed_at IS NULL AND received_at < now() - make_interval(secs => $1)
        GROUP BY transaction_id LIMIT $2`,
      [slackSeconds, limit],
    );
  }

  // --- fulfilment (sealed delivery data and its read audit) ---

  /** Stored once: a repeated verification keeps the first copy. */
  async storeFulfilment(manager: Queryable, transactionId: string, kind: 'pin' | 'esim', keyId: string, sealed: string): Promise<void> {
    await manager.query(
      `INSERT INTO purchase_fulfilments (transaction_id, kind, key_id, sealed) VALUES ($1, $2, $3, $4) ON CONFLICT (transaction_id) DO NOTHING`,
      [transactionId, kind, keyId, sealed],
    );
  }

  /**
   * The sealed delivery data of the vendor's own completed transaction; null when the transaction
   * is the vendor's but has none to deliver (not completed, reversed, or no PIN/eSIM data);
   * undefined when it is not the vendor's (or does not exist).
   */
  async sealedFulfilment(manager: Queryable, vendorId: string, transactionId: string): Promise<string | null | undefined> {
    const [row] = await manager.query<{ sealed: string | null }[]>(
      `SELECT CASE WHEN t.status = 'completed' THEN f.sealed END AS sealed
         FROM purchase_transactions t LEFT JOIN purchase_fulfilments f ON f.transaction_id = t.id
        WHERE t.vendor_id = $1 AND t.id = $2`,
      [vendorId, transactionId],
    );
    return row === undefined ? undefined : row.sealed;
  }

  /** Exactly one of the token and the dashboard user is set (a CHECK keeps it so). */
  async recordFulfilmentRead(manager: Queryable, read: { vendorId: string; tokenId: string | null; dashboardUserId: string | null; transactionId: string }): Promise<void> {
    await manager.query(`INSERT INTO purchase_fulfilment_reads (vendor_id, token_id, dashboard_user_id, transaction_id) VALUES ($1, $2, $3, $4)`, [
      read.vendorId,
      read.tokenId,
      read.dashboardUserId,
      read.transactionId,
    ]);
  }
}
