import { Injectable, Logger } from '@nestjs/common';
import type { JobPayloads, PurchaseVerifyPayload } from '#queues';
import type { ClaimedTransactionRecord, TransactionRecord } from '../model/transaction-record.js';
import type { NextCheck } from '../outcomes/purchase-outcome.types.js';
import { PurchaseOutcomesService } from '../outcomes/purchase-outcomes.service.js';
import { TransactionEvidenceRepository } from '../persistence/transaction-evidence.repository.js';
import { TransactionRepository } from '../persistence/transaction.repository.js';
import { PurchaseProviderLookup } from './purchase-provider-lookup.js';
import { PurchaseTimings } from '../model/purchase-timings.js';
import { TransactionWorkRepository } from '../persistence/transaction-work.repository.js';

/** The reasons a link of the polling chain is scheduled for. */
type CheckReason = Extract<PurchaseVerifyPayload, { check: number }>['reason'];

/** The chain's next link as planned from a recording, and why (`review`: the window elapsed, staff take over). */
interface NextLink {
  check: NextCheck;
  reason: CheckReason | 'review' | null;
}

/**
 * One provider GET, recorded by PurchaseOutcomesService, then the chain's next check. It runs for
 * a check of the polling chain that PurchaseCheckClaimsService claimed from PostgreSQL when it fell due,
 * and for a `purchase.verify` job (the worker app's VerifyPurchaseHandler): a callback's or a
 * staff's request.
 *
 * Each transaction has one polling chain: the check whose `check` equals the row's `check_seq`
 * schedules the next one (backoff while pending, the reversal watch after completion); a check
 * behind `check_seq` was superseded and does nothing. Callback and manual checks look up and
 * record; they start a chain when none is running and take the chain over when their lookup
 * moved the status.
 *
 * The chain's first poll (about 2 s after submission) is superseded in almost every purchase by
 * the callback (about 1 s): the callback's recording moves `next_check_at` to the reversal watch,
 * so the poll is never claimed, and costs nothing at all.
 */
@Injectable()
export class PurchaseVerificationService {
  private readonly logger = new Logger(PurchaseVerificationService.name);

  constructor(
    private readonly transactions: TransactionRepository,
    private readonly evidence: TransactionEvidenceRepository,
    private readonly lookup: PurchaseProviderLookup,
    private readonly recorder: PurchaseOutcomesService,
    private readonly work: TransactionWorkRepository,
    private readonly timings: PurchaseTimings,
  ) {}

  /**
   * `claimed`: the record as a claim left it, so it is not read again: a due check's
   * (PurchaseCheckClaimsService), or a callback's with the highest marker its round claimed
   * (PurchaseCallbackClaimsService). Its recording is then written without the row's lock while
   * the row is still as the claim read it (PurchaseOutcomesService.record).
   */
  async verify(payload: JobPayloads['purchase.verify'], claimed?: ClaimedTransactionRecord & { openMarker?: string | null }): Promise<void> {
    const { transactionId, reason } = payload;
    const check = 'check' in payload ? payload.check : undefined;
    // A callback's job (staff, or an earlier release's) reads the state and the markers it covers in one statement.
    const before: (TransactionRecord & { openMarker?: string | null }) | undefined = claimed ?? (reason === 'callback' ? await this.evidence.recordWithOpenMarker(transactionId) : await this.transactions.record(transactionId));
    if (!before) {
      this.logger.warn({ transactionId }, 'Verification job for an unknown transaction; ignored');
      return;
    }
    if (check !== undefined && check !== before.checkSeq) {
      // A later check of this chain was scheduled (a callback's verification settled the
      // purchase, or the sweeper re-issued an overdue check): that job looks up, not this one.
      return;
    }
    // Callback markers received up to now are covered by this job; later ones get their own job.
    // They are consumed only once a lookup has answered (or none is needed), so a provider that
    // is unreachable now leaves them for the sweeper, and a late reversal is not lost.
    const coveredMarker = reason === 'callback' ? (before.openMarker ?? null) : null;
    if (before.status === 'reversed') {
      // Final at both ends: nothing a lookup could change.
      await this.consumeMarkers(transactionId, coveredMarker);
      if (before.nextCheckAt !== null) await this.work.stopChecks(transactionId);
      return;
    }
    if (before.status === 'failed') {
      if (before.nextCheckAt !== null) await this.work.stopChecks(transactionId);
      // Only a hint from the provider (callback) or staff make a failed purchase worth a lookup:
      // the provider may have created it after our not-found proof (late creation).
      if (reason !== 'callback' && reason !== 'manual') return;
    } else if (before.submissionAttemptedAt === null && before.providerTransactionId === null) {
      // Not submitted yet: there is nothing to verify; the submission job schedules checks.
      await this.consumeMarkers(transactionId, coveredMarker);
      return;
    }

    const observation = await this.lookup.observe(transactionId, before.providerTransactionId);
    // The markers this lookup answered and the chain's next link are written with the recording,
    // in its transaction (one commit per verification).
    let planned: NextLink = { check: 'keep', reason: null };
    await this.recorder.record(
      transactionId,
      observation,
      {
        consumeMarkersUpTo: coveredMarker,
        nextCheck:
          before.status === 'failed'
            ? undefined
            : (state) => {
                planned = this.planNext(state, check);
                return planned.check;
              },
      },
      claimed,
    );
    // The next check, if any, was written with the recording; PurchaseCheckClaimsService takes it when due.
    if (planned.reason === 'review') await this.recorder.moveToReview(transactionId);
  }

  /**
   * The job that owns the chain schedules its successor. A lookup outside the chain (callback,
   * manual) that moved the status takes the chain over, so the poll still waiting for the old
   * status finds itself superseded instead of repeating the lookup; with no chain, it starts one.
   */
  private planNext(state: TransactionRecord & { statusMoved: boolean }, check: number | undefined): NextLink {
    const ownsChain = check !== undefined && check === state.checkSeq;
    const noChain = state.nextCheckAt === null;
    if (!(ownsChain || state.statusMoved || noChain)) return { check: 'keep', reason: null };
    // Taking over moves check_seq and next_check_at past the running chain's check: it is never claimed.
    return this.nextLink(state, ownsChain || state.statusMoved);
  }

  /** Marks the markers this job covered (up to `upTo`, read before the lookup) as processed. */
  private async consumeMarkers(transactionId: string, upTo: string | null): Promise<void> {
    if (upTo !== null) await this.evidence.consumeMarkers(transactionId, upTo);
  }

  private nextLink(state: TransactionRecord, ownsChain: boolean): NextLink {
    const now = Date.now();
    if (state.status === 'pending') {
      // Moved to review after the recording's commit, in its own transaction under the row lock.
      if (now - new Date(state.createdAt).getTime() >= this.timings.verificationWindowMs) return { check: 'keep', reason: 'review' };
      const nextCheck = ownsChain ? state.checkSeq + 1 : 1;
      return { check: { delayMs: this.timings.pendingCheckDelayMs(nextCheck, state.notFoundStreak) }, reason: 'poll' };
    }
    if (state.status === 'completed' && state.reversalWatchUntil !== null) {
      const remaining = new Date(state.reversalWatchUntil).getTime() - now;
      if (remaining > 0) return { check: { delayMs: this.timings.reversalWatchDelayMs(remaining) }, reason: 'reversal-watch' };
    }
    // Final, in review, or the watch is over: no further automatic checks (callbacks still trigger one).
    return { check: ownsChain ? 'stop' : 'keep', reason: null };
  }
}
