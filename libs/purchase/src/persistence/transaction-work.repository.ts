import { Injectable } from '@nestjs/common';
import sql from 'sql-template-tag';
import { DataSource } from 'typeorm';
import { readShape, updateReturning } from '#database';
import type { ClosedWithoutLine } from '#providers';
import { undispatchedOutboxRow } from '#queues';
import type { ClaimedTransactionRecord, SubmissionRecord } from '../model/transaction-record.js';
import type { TransactionStatus } from '../model/transaction-status.js';
import { TRANSACTION } from './transaction-shapes.js';

export type SubmissionOutcome = 'accepted' | 'rejected' | 'http_error' | 'unknown';

/** A purchase a settlement report leaves unnamed: its wholesale amount and the provider's transaction id, as the report would carry them. */
const CLOSED_WITHOUT_LINE = readShape<ClosedWithoutLine<TransactionStatus>>({
  id: 't.id', vendorId: 't.vendor_id', status: 't.status', amountCents: 't.wholesale_cents::text', providerReference: 't.provider_transaction_id::text',
});

/** What a claim reads of each transaction beside its record: the row's version and the claim's clock (ClaimedTransactionRecord). */
const CLAIMED_EXTRA = `t.xmin::text AS "version", now() AS "databaseNow"`;

function claimedRecord(row: object & { version: string; databaseNow: Date }, monotonicMs: number): ClaimedTransactionRecord {
  return { ...TRANSACTION.read(row), version: row.version, clock: { databaseNow: row.databaseNow, monotonicMs } };
}

/**
 * What the worker, the sweeper and settlement claim or pick up: the submission's one claim and its
 * outcome, the polling chain's schedule, overdue checks, unsubmitted purchases, unanswered
 * callback markers and purchases a settlement report left out.
 */
@Injectable()
export class TransactionWorkRepository {
  constructor(private readonly dataSource: DataSource) {}

  // --- submission ---

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

  /**
   * Nothing left this process: the claim is released so a later round or job may submit, and its
   * safety-net check goes with it (no create can be in flight, so there is nothing to look up).
   */
  async releaseSubmissionClaim(transactionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE purchase_transactions SET submission_attempted_at = NULL, next_check_at = NULL WHERE id = $1 AND submission_ended_at IS NULL`, [
      transactionId,
    ]);
  }

  /**
   * One round of the submission claims: leases up to `limit` admitted purchases never attempted
   * and not leased by another round, oldest first, for `leaseMs`, with their product's pricing
   * kind. Rows another worker is leasing are skipped, and the conditions are checked again on each
   * locked row. The lease covers the lookup before the create; the attempt itself is claimed by
   * startAttempts. Purchases admitted longer than `windowMs` ago are left to the sweeper's job,
   * which looks them up and fails them (too late to buy on the vendor's behalf). The scan is
   * purchase_transactions_unsubmitted_idx's, in its order.
   */
  async leaseSubmissions(limit: number, leaseMs: number, windowMs: number): Promise<SubmissionRecord[]> {
    const rows = await updateReturning<object & { pricing_kind: string }>(
      this.dataSource,
      `WITH claimable AS (
         SELECT id FROM purchase_transactions
          WHERE status = 'pending' AND submission_attempted_at IS NULL AND provider_transaction_id IS NULL
            AND created_at > now() - make_interval(secs => $3::double precision / 1000)
            AND (submission_claimed_until IS NULL OR submission_claimed_until < now())
          ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       UPDATE purchase_transactions t SET submission_claimed_until = now() + make_interval(secs => $2::double precision / 1000)
         FROM claimable, purchase_products p
        WHERE t.id = claimable.id AND p.id = t.product_id
        RETURNING ${TRANSACTION.columns}, p.pricing_kind`,
      [limit, leaseMs, windowMs],
    );
    return rows.map((row) => ({ ...TRANSACTION.read(row), pricingKind: row.pricing_kind }));
  }

  /**
   * claimSubmission for a round's purchases that the provider proved absent: each attempt claimed
   * (committed before any create is sent) unless another path claimed it meanwhile. Returns the
   * ids claimed; only those may be created.
   *
   * Locked by primary key first and checked on the locked rows, as claimSubmission is and for its
   * reason: with the conditions on the UPDATE itself the planner scanned the whole of
   * purchase_transactions_unsubmitted_idx for the round's ids (measured with pg_stat_statements in
   * the sustained benchmark: 131 buffers per purchase and 10 ms per round of 32, growing with the backlog).
   */
  async startAttempts(transactionIds: readonly string[], safetyNetMs: number): Promise<Set<string>> {
    const rows = await updateReturning<{ id: string }>(
      this.dataSource,
      `WITH locked AS (SELECT id, status, submission_attempted_at, provider_transaction_id FROM purchase_transactions WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE)
       UPDATE purchase_transactions t SET submission_attempted_at = now(), next_check_at = now() + make_interval(secs => $2::double precision / 1000)
         FROM locked
        WHERE t.id = locked.id AND locked.status = 'pending' AND locked.submission_attempted_at IS NULL AND locked.provider_transaction_id IS NULL
        RETURNING t.id`,
      [transactionIds, safetyNetMs],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** Leases of a round given back (the provider could not be reached, or the purchase needs no create): the next round may take them at once. */
  async releaseLeases(transactionIds: readonly string[]): Promise<void> {
    await this.dataSource.query(`UPDATE purchase_transactions SET submission_claimed_until = NULL WHERE id = ANY($1::uuid[])`, [transactionIds]);
  }

  /** The attempts' outcomes and the first check of each polling chain, for a whole round in one statement. */
  async recordSubmissionAttempts(
    attempts: readonly { transactionId: string; outcome: SubmissionOutcome; providerTransactionId: number | null; providerStatus: string | null }[],
    firstCheckDelayMs: number,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE purchase_transactions t SET submission_ended_at = now(), submission_outcome = a.outcome,
         provider_transaction_id = COALESCE(t.provider_transaction_id, a.provider_transaction_id), provider_status = COALESCE(a.provider_status, t.provider_status),
         check_seq = t.check_seq + 1, next_check_at = now() + make_interval(secs => $5::double precision / 1000)
         FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[]) AS a(id, outcome, provider_transaction_id, provider_status)
        WHERE t.id = a.id`,
      [
        attempts.map((attempt) => attempt.transactionId),
        attempts.map((attempt) => attempt.outcome),
        attempts.map((attempt) => attempt.providerTransactionId),
        attempts.map((attempt) => attempt.providerStatus),
        firstCheckDelayMs,
      ],
    );
  }

  // --- the polling chain ---

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

  /**
   * One round of the check claims: takes up to `limit` transactions whose next check is due,
   * earliest first, and starts that check (check_seq + 1, so the claimant owns the polling chain),
   * leasing it for `leaseMs`: the verification's recording sets the chain's next check (or none),
   * and a claimant that dies leaves the lease to expire, after which the check is claimed again.
   * Rows another worker is claiming are skipped (purchase_transactions_next_check_idx). Any status:
   * a check left on a final or reviewed purchase is claimed too, and its verification stops it.
   */
  async claimDueChecks(limit: number, leaseMs: number): Promise<ClaimedTransactionRecord[]> {
    const rows = await updateReturning<object & { version: string; databaseNow: Date }>(
      this.dataSource,
      `UPDATE purchase_transactions t SET check_seq = t.check_seq + 1, next_check_at = now() + make_interval(secs => $2::double precision / 1000)
        WHERE t.id IN (SELECT id FROM purchase_transactions WHERE next_check_at <= now() ORDER BY next_check_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING ${TRANSACTION.columns}, ${CLAIMED_EXTRA}`,
      [limit, leaseMs],
    );
    const answeredAt = performance.now();
    return rows.map((row) => claimedRecord(row, answeredAt));
  }

  async stopChecks(transactionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE purchase_transactions SET next_check_at = NULL WHERE id = $1`, [transactionId]);
  }

  // --- sweeper ---

  /** Admitted more than `slackSeconds` ago, never claimed for submission, and no undispatched outbox row will submit them. */
  async unsubmitted(slackSeconds: number, limit: number): Promise<string[]> {
    const statement = sql`SELECT t.id FROM purchase_transactions t
        WHERE t.status = 'pending' AND t.submission_attempted_at IS NULL AND t.provider_transaction_id IS NULL
          AND t.created_at < now() - make_interval(secs => ${slackSeconds})
          AND NOT ${undispatchedOutboxRow('purchase.submit', sql`o.payload->>'transactionId' = t.id::text`)}
        ORDER BY t.created_at LIMIT ${limit}`;
    const rows = await this.dataSource.query<{ id: string }[]>(statement.text, statement.values);
    return rows.map((row) => row.id);
  }

  /**
   * One round of the callback claims: takes up to `limit` callback markers no lookup has answered
   * and nobody holds (never claimed, or the claim ran out), leasing them for `leaseMs`; rows another
   * worker is claiming are skipped. The lookup that answers a marker consumes it (processed_at)
   * with its recording; a marker whose lookup could not answer is claimed again when its lease ends.
   */
  async claimCallbackMarkers(limit: number, leaseMs: number): Promise<{ claimed: number; transactions: (ClaimedTransactionRecord & { openMarker: string })[] }> {
    // Each named transaction once, read in the claim's statement (its verification does not read
    // it again), with the highest marker claimed for it: what its verification answers.
    const rows = await this.dataSource.query<(object & { openMarker: string; markers: number; version: string; databaseNow: Date })[]>(
      `WITH claimed AS (
         UPDATE purchase_callback_markers m SET claimed_until = now() + make_interval(secs => $2::double precision / 1000)
          WHERE m.id IN (SELECT id FROM purchase_callback_markers
                          WHERE processed_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
                          LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING m.transaction_id, m.id),
       named AS (SELECT transaction_id, max(id)::text AS open_marker, count(*)::int AS markers FROM claimed GROUP BY transaction_id)
       SELECT ${TRANSACTION.columns}, ${CLAIMED_EXTRA}, n.open_marker AS "openMarker", n.markers FROM named n JOIN purchase_transactions t ON t.id = n.transaction_id`,
      [limit, leaseMs],
    );
    const answeredAt = performance.now();
    return {
      claimed: rows.reduce((sum, row) => sum + row.markers, 0),
      transactions: rows.map((row) => ({ ...claimedRecord(row, answeredAt), openMarker: row.openMarker })),
    };
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
  ): Promise<ClosedWithoutLine<TransactionStatus>[]> {
    const rows: object[] = await this.dataSource.query(
      `SELECT ${CLOSED_WITHOUT_LINE.columns}
         FROM purchase_transactions t
        WHERE t.status IN ('completed', 'reversed')
          AND ((t.completed_at >= $2 AND t.completed_at < $3) OR (t.status = 'reversed' AND t.reversed_at >= $2 AND t.reversed_at < $3))
          AND NOT EXISTS (SELECT 1 FROM settlement_lines l WHERE l.report_id = $1 AND l.purchase_transaction_id = t.id)`,
      [reportId, from, to],
    );
    return rows.map(CLOSED_WITHOUT_LINE.read);
  }
}
