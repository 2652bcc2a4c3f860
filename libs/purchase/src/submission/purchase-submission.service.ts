import { Injectable, Logger } from '@nestjs/common';
import {
  ProviderNotConfiguredError,
  ProviderRejectedError,
  ProviderHttpError,
  PurchaseProviderClient,
  type IdentifierFields,
} from '#providers';
import { PurchaseReadiness } from '../catalogue/purchase-readiness.js';
import type { IdentifierGroups } from '../model/catalogue-types.js';
import type { SubmissionRecord } from '../model/transaction-record.js';
import type { ProviderObservation } from '../outcomes/purchase-outcome.types.js';
import { TransactionRepository } from '../persistence/transaction.repository.js';
import { TransactionWorkRepository, type SubmissionOutcome } from '../persistence/transaction-work.repository.js';
import { PurchaseOutcomesService } from '../outcomes/purchase-outcomes.service.js';
import { PurchaseProviderLookup } from '../verification/purchase-provider-lookup.js';
import { PurchaseTimings } from '../model/purchase-timings.js';

/** What one create call told us, ready to be recorded with the attempt. */
interface Attempt {
  transactionId: string;
  outcome: SubmissionOutcome;
  providerTransactionId: number | null;
  providerStatus: string | null;
}

/** What a round of leased submissions did (submitClaimed). */
export interface ClaimedSubmissions {
  /** Creates sent (their outcomes recorded). */
  sent: number;
  /** Purchases given back because the provider could not be reached (or is not configured) before any create: the loop backs off. */
  unreachable: number;
}

/**
 * Sends each purchase to the provider at most once, with our transaction id as its external id.
 * Two ways in, one rule:
 *
 * - `submitClaimed`: the worker's submission claims (PurchaseSubmissionClaimsService) hand it a batch of
 *   purchases already claimed from PostgreSQL; this is how every purchase is normally sent.
 * - `submit`: a `purchase.submit` job (the sweeper rebuilds one for a purchase the claims left
 *   unsent, e.g. admitted before the verification window closed but never claimed), which claims
 *   one purchase itself.
 *
 * Either way the provider is asked first whether it already holds the id (the lookup is also its
 * liveness check: while it fails nothing is sent, so an outage delays purchases instead of
 * spending their one create on a provider that cannot answer, test/reliability), and the claim
 * (`submission_attempted_at`) is committed BEFORE create is called. From then on the outcome is
 * resolved only by lookups: a crash, timeout, 5xx or refusal never leads to a second create (the
 * verification decides, see PurchaseOutcomesService).
 */
@Injectable()
export class PurchaseSubmissionService {
  private readonly logger = new Logger(PurchaseSubmissionService.name);

  constructor(
    private readonly transactions: TransactionRepository,
    private readonly work: TransactionWorkRepository,
    private readonly provider: PurchaseProviderClient,
    private readonly lookup: PurchaseProviderLookup,
    private readonly recorder: PurchaseOutcomesService,
    private readonly readiness: PurchaseReadiness,
    private readonly timings: PurchaseTimings,
  ) {}

  /**
   * A round of the submission claims: `leased` were leased by TransactionWorkRepository.leaseSubmissions.
   * All are looked up at once; those the provider proves absent have their attempts claimed in one
   * statement (committed before any create) and are created at once; the outcomes and each first
   * check are recorded in one statement. A purchase whose lookup did not answer "not found" never
   * reaches create: its lease is given back (nothing was sent) and it continues as `submit` would
   * (adopted, reviewed, or left for the next round). A worker that dies before the attempts are
   * claimed sent nothing: the lease runs out and a later round takes the purchases again.
   */
  async submitClaimed(leased: readonly SubmissionRecord[]): Promise<ClaimedSubmissions> {
    const observations = await Promise.allSettled(leased.map((row) => this.lookup.observe(row.id, null)));
    const absent: SubmissionRecord[] = [];
    const answered: [string, Exclude<ProviderObservation, { kind: 'not_found' | 'unavailable' }>][] = [];
    let unreachable = 0;
    for (const [index, observed] of observations.entries()) {
      const row = leased[index];
      if (observed.status === 'rejected') this.logger.error({ transactionId: row.id, err: (observed.reason as Error).message }, 'Lookup before submission failed; the purchase waits');
      else if (observed.value.kind === 'not_found') absent.push(row);
      else if (observed.value.kind === 'unavailable') unreachable++;
      else answered.push([row.id, observed.value]);
    }
    const started = absent.length > 0 ? await this.work.startAttempts(absent.map((row) => row.id), this.timings.claimLeaseMs) : new Set<string>();
    const notStarted = leased.filter((row) => !started.has(row.id)).map((row) => row.id);
    if (notStarted.length > 0) await this.work.releaseLeases(notStarted);
    for (const [transactionId, before] of answered) await this.settleFoundBeforeCreate(transactionId, before);

    const sending = absent.filter((row) => started.has(row.id));
    const created = await Promise.allSettled(sending.map((row) => this.create(row)));
    const attempts: Attempt[] = [];
    for (const [index, result] of created.entries()) {
      if (result.status === 'fulfilled') attempts.push(result.value);
      else if (result.reason instanceof ProviderNotConfiguredError) {
        // Nothing left this process: the attempt's claim is given back, as the job path does.
        await this.work.releaseSubmissionClaim(sending[index].id);
        unreachable++;
      } else {
        // create() answers every provider failure as an outcome; anything else is a bug. Whether a
        // create left is unknown, so the attempt stays claimed and its safety-net check hands it to lookups.
        this.logger.error({ transactionId: sending[index].id, err: (result.reason as Error).message }, 'Submission failed unexpectedly; lookups will resolve it');
      }
    }
    // The first check of each chain is scheduled with it; PurchaseCheckClaimsService takes it when due.
    if (attempts.length > 0) await this.work.recordSubmissionAttempts(attempts, this.timings.verifyDelayMs(1));
    return { sent: attempts.length, unreachable };
  }

  /** The `purchase.submit` job: one purchase, claimed here. */
  async submit(transactionId: string): Promise<void> {
    const row = await this.transactions.forSubmission(transactionId);
    if (!row) {
      // Queues may be shared; a job for a transaction this database does not hold is not ours.
      this.logger.warn({ transactionId }, 'Submission job for an unknown transaction; ignored');
      return;
    }
    if (row.status !== 'pending') return;
    if (row.submissionAttemptedAt !== null || row.providerTransactionId !== null) {
      // Already attempted (a retry, a duplicate job, or the claims sent it): only lookups may follow.
      if (row.nextCheckAt === null) await this.work.scheduleCheck(transactionId, this.timings.verifyDelayMs(1));
      return;
    }

    // Looked up first although an unclaimed row proves no create was sent (see the class comment);
    // it also adopts a transaction should a claim ever have been lost (a database failed over
    // without its last commits).
    const before = await this.lookup.observe(transactionId, null);
    if (before.kind === 'unavailable') throw new Error(`provider lookup before submission failed: ${before.reason}`);
    if (before.kind !== 'not_found') {
      await this.settleFoundBeforeCreate(transactionId, before);
      return;
    }
    if (Date.now() - new Date(row.createdAt).getTime() > this.timings.verificationWindowMs) {
      // Too late to buy on the vendor's behalf; nothing was ever sent and the provider holds nothing.
      await this.recorder.failUnsubmitted(transactionId);
      return;
    }

    // Claimed before the create call (see claimSubmission); a claim already taken means the
    // attempt is not ours to make.
    if (!(await this.work.claimSubmission(transactionId, this.timings.claimLeaseMs))) return;
    let attempt: Attempt;
    try {
      attempt = await this.create(row);
    } catch (error) {
      // Nothing left this process (ProviderNotConfiguredError), so the claim is released and the job retries later.
      await this.work.releaseSubmissionClaim(transactionId);
      throw error;
    }

    // The attempt's outcome and the first check of the polling chain, in one statement.
    await this.work.recordSubmissionAttempts([attempt], this.timings.verifyDelayMs(1));
  }

  /** The provider already holds our id (adopted and checked on) or something else under it (review and an exception for staff). */
  private async settleFoundBeforeCreate(transactionId: string, before: Exclude<ProviderObservation, { kind: 'not_found' | 'unavailable' }>): Promise<void> {
    if (before.kind === 'mismatched') {
      // Never create on top of it.
      await this.recorder.record(transactionId, before);
      return;
    }
    await this.work.markFoundBeforeCreate(transactionId);
    await this.recorder.record(transactionId, before);
    await this.work.scheduleCheck(transactionId, this.timings.verifyDelayMs(1));
  }

  /** The one create call and its outcome as recorded; throws ProviderNotConfiguredError when nothing left this process. */
  private async create(row: SubmissionRecord): Promise<Attempt> {
    const transactionId = row.id;
    try {
      const created = await this.provider.createTransaction({
        externalId: transactionId,
        productId: row.productId,
        destinationAmount: row.pricingKind === 'ranged' ? row.destinationAmount : undefined,
        creditPartyIdentifier: group(row.identifiers, 'credit_party_identifier'),
        debitPartyIdentifier: group(row.identifiers, 'debit_party_identifier'),
        sender: group(row.identifiers, 'sender'),
        beneficiary: group(row.identifiers, 'beneficiary'),
        statementIdentifier: group(row.identifiers, 'statement_identifier'),
        additionalIdentifier: group(row.identifiers, 'additional_identifier'),
        callbackUrl: this.readiness.callbackUrl(),
      });
      return { transactionId, outcome: 'accepted', providerTransactionId: created.providerTransactionId, providerStatus: created.providerStatus };
    } catch (error) {
      if (error instanceof ProviderNotConfiguredError) throw error;
      let outcome: SubmissionOutcome;
      if (error instanceof ProviderRejectedError && !error.outcomeUnknown) outcome = 'rejected';
      else if (error instanceof ProviderHttpError) outcome = 'http_error';
      else outcome = 'unknown';
      this.logger.warn({ transactionId, outcome, err: (error as Error).message }, 'Provider create did not confirm; resolving by lookup');
      return { transactionId, outcome, providerTransactionId: null, providerStatus: null };
    }
  }
}

function group(identifiers: IdentifierGroups, name: keyof IdentifierGroups): IdentifierFields | undefined {
  const values = identifiers[name];
  return values && Object.keys(values).length > 0 ? values : undefined;
}
