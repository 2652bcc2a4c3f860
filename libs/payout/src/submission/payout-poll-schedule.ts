import { Injectable } from '@nestjs/common';
import { GatewayEnv } from '#config';
import type { PayoutRecord } from '../payouts/payout-record.js';

export type PollDecision = { kind: 'poll'; at: Date } | { kind: 'review' } | { kind: 'stop' };

/**
 * When the status of a payout is looked up at its provider. Polls back off exponentially from
 * PAYOUT_POLL_INITIAL_DELAY_MS up to PAYOUT_POLL_MAX_INTERVAL_MS; a payout still without a final
 * answer PAYOUT_REVIEW_AFTER_MS after submission goes to needs_review; a paid payout is watched
 * for a reversal for PAYOUT_REVERSAL_WATCH_MS after it was paid.
 */
@Injectable()
export class PayoutPollSchedule {
  constructor(private readonly config: GatewayEnv) {}

  /** The first lookup comes after the submission's own provider call has surely ended. */
  firstPollAt(submittedAt: Date): Date {
    return new Date(submittedAt.getTime() + this.config.PAYOUT_PROVIDER_TIMEOUT_MS + this.config.PAYOUT_POLL_INITIAL_DELAY_MS);
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
    return { kind: 'stop' };
  }
}
