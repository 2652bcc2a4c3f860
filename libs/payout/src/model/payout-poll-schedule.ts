import { Injectable } from '@nestjs/common';
import { GatewayEnv } from '#config';
import type { PayoutRecord } from './payout-record.js';

/** See PayoutPollSchedule.submitWithinMs. */
export const SUBMIT_WITHIN_FLOOR_MS = 5_000;

export type PollDecision = { kind: 'poll'; at: Date } | { kind: 'review' } | { kind: 'stop' };

/**
 * When the status of a payout is looked up at its provider. Polls back off exponentially from
 * PAYOUT_POLL_INITIAL_DELAY_MS up to PAYOUT_POLL_MAX_INTERVAL_MS; a payout still without a final
 * answer PAYOUT_REVIEW_AFTER_MS after submission goes to needs_review; a paid payout is watched
 * for a reversal for PAYOUT_REVERSAL_WATCH_MS after it was paid. A needs_review payout keeps
 * being looked up every PAYOUT_REVIEW_POLL_INTERVAL_MS (slowly: the provider has not answered for
 * days) until a provider answer or staff close it.
 */
@Injectable()
export class PayoutPollSchedule {
  constructor(private readonly config: GatewayEnv) {}

  /** The first lookup comes after the submission's own provider call has surely ended. */
  firstPollAt(submittedAt: Date): Date {
    return new Date(submittedAt.getTime() + this.config.PAYOUT_PROVIDER_TIMEOUT_MS + this.config.PAYOUT_POLL_INITIAL_DELAY_MS);
  }

  /** When a needs_review payout is looked up next. */
  reviewPollAt(now: Date = new Date()): Date {
    return new Date(now.getTime() + this.config.PAYOUT_REVIEW_POLL_INTERVAL_MS);
  }

  /**
   * The earliest instant at which a lookup finding nothing counts as evidence that the provider
   * never received the payout: the submission attempt's end plus the settle period. An attempt
   * with no recorded end (the process died around the call) ended at the latest two provider
   * at the latest submitWithinMs plus one provider timeout after the claim: the submitter sends
   * only within submitWithinMs of the claim, and the call itself is cut off after a timeout.
   */
  notFoundCountsFrom(payout: Pick<PayoutRecord, 'submissionStartedAt' | 'submissionAnsweredAt'>): Date | null {
    if (payout.submissionStartedAt === null) return null;
    const attemptEnded = payout.submissionAnsweredAt?.getTime() ?? payout.submissionStartedAt.getTime() + this.submitWithinMs + this.config.PAYOUT_PROVIDER_TIMEOUT_MS;
    return new Date(attemptEnded + this.config.PAYOUT_NOT_FOUND_SETTLE_MS);
  }

  /**
   * The submitter calls the provider only within this long of its claim (see notFoundCountsFrom):
   * one provider timeout, and never less than SUBMIT_WITHIN_FLOOR_MS so a slow commit on a busy
   * database does not stop an ordinary submission.
   */
  get submitWithinMs(): number {
    return Math.max(this.config.PAYOUT_PROVIDER_TIMEOUT_MS, SUBMIT_WITHIN_FLOOR_MS);
  }

  delayAfter(link: number): number {
    const delay = this.config.PAYOUT_POLL_INITIAL_DELAY_MS * 2 ** Math.min(link, 30);
    return Math.min(delay, this.config.PAYOUT_POLL_MAX_INTERVAL_MS);
  }

  /** What follows poll `link`, given the payout's state after it. */
  next(payout: Pick<PayoutRecord, 'status' | 'submissionStartedAt' | 'createdAt' | 'paidAt'>, link: number, now: Date = new Date()): PollDecision {
    const at = new Date(now.getTime() + this.delayAfter(link));
    if (payout.status === 'pending') {
      const since = (payout.submissionStartedAt ?? payout.createdAt).getTime();
      return now.getTime() - since >= this.config.PAYOUT_REVIEW_AFTER_MS ? { kind: 'review' } : { kind: 'poll', at };
    }
    if (payout.status === 'paid') {
      const watchEnds = (payout.paidAt ?? now).getTime() + this.config.PAYOUT_REVERSAL_WATCH_MS;
      if (now.getTime() >= watchEnds) return { kind: 'stop' };
      // The last watch poll lands at the end of the window, not beyond it.
      return { kind: 'poll', at: new Date(Math.min(at.getTime(), watchEnds)) };
    }
    if (payout.status === 'needs_review') return { kind: 'poll', at: this.reviewPollAt(now) };
    return { kind: 'stop' };
  }
}
