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
import { TransactionRepository } from '../persistence/transaction.repository.js';
import { TransactionWorkRepository, type SubmissionOutcome } from '../persistence/transaction-work.repository.js';
import { PurchaseOutcomesService } from '../outcomes/purchase-outcomes.service.js';
import { PurchaseProviderLookup } from '../verification/purchase-provider-lookup.js';
import { PurchaseTimings } from '../model/purchase-timings.js';
import { VerificationScheduler } from '../verification/verification-scheduler.js';

/**
 * What a `purchase.submit` job does (the worker app's SubmitPurchaseHandler delivers the job
 * here): sends the purchase to the provider at most once, with our transaction id
 * as its external id.
 *
 * 1. Look the id up first; if the provider already has it, adopt it.
 * 2. Claim the attempt in PostgreSQL (`submission_attempted_at`) BEFORE calling create. From then
 *    on the outcome is resolved only by lookups: a crash, timeout, 5xx or refusal never leads to
 *    a second create (the verify job decides, see PurchaseOutcomesService).
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
    private readonly scheduler: VerificationScheduler,
    private readonly readiness: PurchaseReadiness,
    private readonly timings: PurchaseTimings,
  ) {}

  async submit(transactionId: string): Promise<void> {
    const row = await this.transactions.forSubmission(transactionId);
    if (!row) {
      // Queues may be shared; a job for a transaction this database does not hold is not ours.
      this.logger.warn({ transactionId }, 'Submission job for an unknown transaction; ignored');
      return;
    }
    if (row.status !== 'pending') return;
    if (row.submissionAttemptedAt !== null || row.providerTransactionId !== null) {
      // Already attempted (a retry or a duplicate job): only lookups may follow.
      if (row.nextCheckAt === null) await this.scheduler.scheduleCheck(transactionId, this.timings.verifyDelayMs(1), 'submission');
      return;
    }

    // Looked up first although an unclaimed row proves no create was sent: the lookup is also the
    // provider's liveness check. While it fails nothing is sent and the job retries, so a provider
    // outage delays purchases instead of spending their one create on a provider that cannot
    // answer (test/reliability/infrastructure-faults). It also adopts a transaction should a
    // claim ever have been lost (a database failed over without its last commits).
    const before = await this.lookup.observe(transactionId, null);
    if (before.kind === 'unavailable') throw new Error(`provider lookup before submission failed: ${before.reason}`);
    if (before.kind === 'mismatched') {
      // The provider holds something else under our id: never create on top of it; review and an exception for staff.
      await this.recorder.record(transactionId, before);
      return;
    }
    if (before.kind === 'found') {
      await this.work.markFoundBeforeCreate(transactionId);
      await this.recorder.record(transactionId, before);
      await this.scheduler.scheduleCheck(transactionId, this.timings.verifyDelayMs(1), 'submission');
      return;
    }
    if (Date.now() - new Date(row.createdAt).getTime() > this.timings.verificationWindowMs) {
      // Too late to buy on the vendor's behalf; nothing was ever sent and the provider holds nothing.
      await this.recorder.failUnsubmitted(transactionId);
      return;
    }

    // Claimed before the create call (see claimSubmission); a claim already taken means the
    // attempt is not ours to make.
    if (!(await this.work.claimSubmission(transactionId, 2 * this.timings.providerTimeoutMs))) return;

    let outcome: SubmissionOutcome;
    let providerTransactionId: number | null = null;
    let providerStatus: string | null = null;
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
      outcome = 'accepted';
      providerTransactionId = created.providerTransactionId;
      providerStatus = created.providerStatus;
    } catch (error) {
      if (error instanceof ProviderNotConfiguredError) {
        // Nothing left this process, so the claim is released and the job retries later.
        await this.work.releaseSubmissionClaim(transactionId);
        throw error;
      }
      if (error instanceof ProviderRejectedError && !error.outcomeUnknown) outcome = 'rejected';
      else if (error instanceof ProviderHttpError) outcome = 'http_error';
      else outcome = 'unknown';
      this.logger.warn({ transactionId, outcome, err: (error as Error).message }, 'Provider create did not confirm; resolving by lookup');
    }

    // The attempt's outcome and the first check of the polling chain, in one statement.
    const check = await this.work.recordSubmissionAttempt(transactionId, {
      outcome,
      providerTransactionId,
      providerStatus,
      firstCheckDelayMs: this.timings.verifyDelayMs(1),
    });
    await this.scheduler.enqueue(transactionId, check, this.timings.verifyDelayMs(1), 'submission');
  }
}

function group(identifiers: IdentifierGroups, name: keyof IdentifierGroups): IdentifierFields | undefined {
  const values = identifiers[name];
  return values && Object.keys(values).length > 0 ? values : undefined;
}
