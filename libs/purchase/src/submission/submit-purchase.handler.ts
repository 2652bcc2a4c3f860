import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import {
  ProviderNotConfiguredError,
  ProviderRejectedError,
  ProviderHttpError,
  PurchaseProviderClient,
  type IdentifierFields,
} from '#providers';
import { JobHandlerRegistry, type JobHandler, type JobPayloads } from '#queues';
import { PurchaseReadiness } from '../catalogue/purchase-readiness.js';
import type { IdentifierGroups } from '../model/catalogue-types.js';
import { PurchaseOutcomeRecorder } from '../outcomes/purchase-outcome-recorder.js';
import { PurchaseProviderLookup } from '../verification/purchase-provider-lookup.js';
import { PurchaseTimings } from '../model/purchase-timings.js';
import { VerificationScheduler } from '../verification/verification-scheduler.js';

type SubmitJob = Job<JobPayloads['purchase.submit']>;

interface SubmissionRow {
  id: string;
  status: string;
  product_id: number;
  pricing_kind: string;
  destination_amount: string;
  identifiers: IdentifierGroups;
  created_at: Date;
  submission_attempted_at: Date | null;
  provider_transaction_id: string | null;
  next_check_at: Date | null;
}

/**
 * `purchase.submit`: sends the purchase to the provider at most once, with our transaction id
 * as its external id.
 *
 * 1. Look the id up first; if the provider already has it, adopt it.
 * 2. Claim the attempt in PostgreSQL (`submission_attempted_at`) BEFORE calling create. From then
 *    on the outcome is resolved only by lookups: a crash, timeout, 5xx or refusal never leads to
 *    a second create (the verify job decides, see PurchaseOutcomeRecorder).
 */
@Injectable()
export class SubmitPurchaseHandler implements JobHandler<'purchase.submit'>, OnModuleInit {
  private readonly logger = new Logger(SubmitPurchaseHandler.name);

  constructor(
    private readonly registry: JobHandlerRegistry,
    private readonly dataSource: DataSource,
    private readonly provider: PurchaseProviderClient,
    private readonly lookup: PurchaseProviderLookup,
    private readonly recorder: PurchaseOutcomeRecorder,
    private readonly scheduler: VerificationScheduler,
    private readonly readiness: PurchaseReadiness,
    private readonly timings: PurchaseTimings,
  ) {}

  onModuleInit(): void {
    this.registry.register('purchase.submit', this);
  }

  async handle(job: SubmitJob): Promise<void> {
    const { transactionId } = job.data;
    const row = await this.loadRow(transactionId);
    if (!row) {
      // Queues may be shared; a job for a transaction this database does not hold is not ours.
      this.logger.warn({ transactionId }, 'Submission job for an unknown transaction; ignored');
      return;
    }
    if (row.status !== 'pending') return;
    if (row.submission_attempted_at !== null || row.provider_transaction_id !== null) {
      // Already attempted (a retry or a duplicate job): only lookups may follow.
      if (row.next_check_at === null) await this.scheduler.scheduleCheck(transactionId, this.timings.verifyDelayMs(1), 'submission');
      return;
    }

    // Looked up first although an unclaimed row proves no create was sent: the lookup is also the
    // provider's liveness check. While it fails nothing is sent and the job retries, so a provider
    // outage delays purchases instead of spending their one create on a provider that cannot
    // answer (test/reliability/infrastructure-faults). It also adopts a transaction should a
    // claim ever have been lost (a database failed over without its last commits).
    const before = await this.lookup.observe(transactionId, null);
    if (before.kind === 'unavailable') throw new Error(`provider lookup before submission failed: ${before.reason}`);
    if (before.kind === 'found') {
      await this.dataSource.query(
        `UPDATE purchase_transactions SET submission_outcome = 'found_before_create' WHERE id = $1 AND submission_outcome IS NULL`,
        [transactionId],
      );
      await this.recorder.record(transactionId, before);
      await this.scheduler.scheduleCheck(transactionId, this.timings.verifyDelayMs(1), 'submission');
      return;
    }
    if (Date.now() - new Date(row.created_at).getTime() > this.timings.verificationWindowMs) {
      // Too late to buy on the vendor's behalf; nothing was ever sent and the provider holds nothing.
      await this.recorder.failUnsubmitted(transactionId);
      return;
    }

    // next_check_at is a safety net: if this process dies during the create, the sweeper finds
    // the transaction overdue and the lookups take over.
    // The row is locked by its primary key and the claim's conditions are checked on the locked
    // row. Written as `UPDATE ... WHERE id = $1 AND status = 'pending' AND ...`, the conditions
    // match the predicate of purchase_transactions_unsubmitted_idx and the planner may scan that
    // whole index for the id: one claim then costs O(backlog), measured at 2 ms with 2,700
    // purchases waiting, and the worker slows down exactly when a backlog builds up.
    const [claimed] = await this.dataSource.query(
      `WITH locked AS (SELECT id, status, submission_attempted_at, provider_transaction_id FROM purchase_transactions WHERE id = $1 FOR UPDATE)
       UPDATE purchase_transactions t SET submission_attempted_at = now(), next_check_at = now() + make_interval(secs => $2::double precision / 1000)
         FROM locked
        WHERE t.id = locked.id AND locked.status = 'pending' AND locked.submission_attempted_at IS NULL AND locked.provider_transaction_id IS NULL
        RETURNING t.id`,
      [transactionId, 2 * this.timings.providerTimeoutMs],
    );
    if (claimed.length === 0) return;

    let outcome: 'accepted' | 'rejected' | 'http_error' | 'unknown';
    let providerTransactionId: number | null = null;
    let providerStatus: string | null = null;
    try {
      const created = await this.provider.createTransaction({
        externalId: transactionId,
        productId: row.product_id,
        destinationAmount: row.pricing_kind === 'ranged' ? row.destination_amount : undefined,
        creditPartyIdentifier: group(row.identifiers, 'credit_party_identifier'),
        debitPartyIdentifier: group(row.identifiers, 'debit_party_identifier'),
        sender: group(row.identifiers, 'sender'),
        beneficiary: group(row.identifiers, 'beneficiary'),
        statementIdentifier: group(row.identifiers, 'statement_identifier'),
        additionalIdentifier: group(row.identifiers, 'additional_identifier'),
        callbackUrl: this.readiness.callbackUrl(),
      });
      outcome = 'accepted';
      providerTransactionId = created.providerTransactionId;
      providerStatus = created.providerStatus;
    } catch (error) {
      if (error instanceof ProviderNotConfiguredError) {
        // Nothing left this process, so the claim is released and the job retries later.
        await this.dataSource.query(`UPDATE purchase_transactions SET submission_attempted_at = NULL WHERE id = $1`, [transactionId]);
        throw error;
      }
      if (error instanceof ProviderRejectedError && !error.outcomeUnknown) outcome = 'rejected';
      else if (error instanceof ProviderHttpError) outcome = 'http_error';
      else outcome = 'unknown';
      this.logger.warn({ transactionId, outcome, err: (error as Error).message }, 'Provider create did not confirm; resolving by lookup');
    }

    // The attempt's outcome and the first check of the polling chain, in one statement.
    const [[scheduled]] = await this.dataSource.query(
      `UPDATE purchase_transactions SET submission_ended_at = now(), submission_outcome = $2,
         provider_transaction_id = COALESCE(provider_transaction_id, $3), provider_status = COALESCE($4, provider_status),
         check_seq = check_seq + 1, next_check_at = now() + make_interval(secs => $5::double precision / 1000)
        WHERE id = $1 RETURNING check_seq`,
      [transactionId, outcome, providerTransactionId, providerStatus, this.timings.verifyDelayMs(1)],
    );
    await this.scheduler.enqueue(transactionId, scheduled.check_seq, this.timings.verifyDelayMs(1), 'submission');
  }

  async onFinalFailure(job: SubmitJob, error: Error): Promise<void> {
    // The transaction stays pending; the sweeper re-enqueues its submission from PostgreSQL.
    this.logger.error({ transactionId: job.data.transactionId, err: error.message }, 'Submission job gave up; the sweeper will retry');
  }

  private async loadRow(transactionId: string): Promise<SubmissionRow | null> {
    const [row] = await this.dataSource.query(
      `SELECT t.id, t.status, t.product_id, p.pricing_kind, t.destination_amount, t.identifiers, t.created_at,
              t.submission_attempted_at, t.provider_transaction_id, t.next_check_at
         FROM purchase_transactions t JOIN purchase_products p ON p.id = t.product_id
        WHERE t.id = $1`,
      [transactionId],
    );
    return row ?? null;
  }
}

function group(identifiers: IdentifierGroups, name: keyof IdentifierGroups): IdentifierFields | undefined {
  const values = identifiers[name];
  return values && Object.keys(values).length > 0 ? values : undefined;
}
