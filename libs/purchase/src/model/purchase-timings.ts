import { Injectable } from '@nestjs/common';
import { GatewayEnv } from '#config';
import type { ClaimLoopPace } from '#queues';

/** The worker's clocks, from GatewayEnv (documented in docs/PURCHASE.md). */
@Injectable()
export class PurchaseTimings {
  constructor(private readonly config: GatewayEnv) {}

  /** Delay before the n-th check of a transaction (1-based): doubling from the initial delay, capped. */
  verifyDelayMs(checkNumber: number): number {
    const exponent = Math.min(Math.max(checkNumber - 1, 0), 20);
    return Math.min(this.config.PURCHASE_VERIFY_INITIAL_DELAY_MS * 2 ** exponent, this.config.PURCHASE_VERIFY_MAX_DELAY_MS);
  }

  /**
   * Delay before the next check of a pending transaction. While a counted "not found" awaits its
   * confirmation (streak 1 of 2) the confirming search comes after the confirm delay when that is
   * sooner than the backoff: this is what brings a never-created purchase (sandbox 03) to `failed`
   * in about 20 s with default settings instead of one to two minutes.
   */
  pendingCheckDelayMs(checkNumber: number, notFoundStreak: number): number {
    const backoff = this.verifyDelayMs(checkNumber);
    return notFoundStreak > 0 ? Math.min(backoff, this.config.PURCHASE_NOT_FOUND_CONFIRM_DELAY_MS) : backoff;
  }

  /**
   * Whether a search made at `nowMs` that finds nothing counts as evidence the provider never
   * created the purchase: only once any create we sent can no longer be in flight (the attempt
   * ended, or unanswered was cut off by the timeout) plus the settle period.
   */
  notFoundCounts(nowMs: number, attempt: { attemptedAtMs: number; endedAtMs: number | null }): boolean {
    const attemptEnded = attempt.endedAtMs ?? attempt.attemptedAtMs + this.config.PURCHASE_PROVIDER_TIMEOUT_MS;
    return nowMs >= attemptEnded + this.config.PURCHASE_NOT_FOUND_SETTLE_MS;
  }

  get verificationWindowMs(): number {
    return this.config.PURCHASE_VERIFICATION_WINDOW_MS;
  }

  get reversalWatchMs(): number {
    return this.config.PURCHASE_REVERSAL_WATCH_MS;
  }

  /**
   * Delay before the next reversal-watch check of a purchase whose watch ends in `remainingMs`:
   * as long as the purchase has been completed (the watch started at completion), at least
   * PURCHASE_REVERSAL_WATCH_INTERVAL_MS and at most PURCHASE_REVERSAL_WATCH_MAX_INTERVAL_MS, and
   * never past the end of the watch, whose last check falls on it.
   */
  reversalWatchDelayMs(remainingMs: number): number {
    const completedForMs = Math.max(this.config.PURCHASE_REVERSAL_WATCH_MS - remainingMs, 0);
    const spacing = Math.min(Math.max(completedForMs, this.config.PURCHASE_REVERSAL_WATCH_INTERVAL_MS), this.config.PURCHASE_REVERSAL_WATCH_MAX_INTERVAL_MS);
    return Math.min(spacing, remainingMs);
  }

  get sweepIntervalMs(): number {
    return this.config.PURCHASE_SWEEP_INTERVAL_MS;
  }

  /**
   * How the worker's purchase claim loops pace themselves: PURCHASE_CLAIM_BATCH a round,
   * PURCHASE_CLAIM_IDLE_MS after a short one, backing off to 30 s while rounds fail.
   */
  get claimPace(): ClaimLoopPace {
    return { batch: this.config.PURCHASE_CLAIM_BATCH, idleMs: this.config.PURCHASE_CLAIM_IDLE_MS, maxBackoffMs: 30_000 };
  }

  /** A claim's lease: twice the provider timeout, past any provider call the claimant makes. */
  get claimLeaseMs(): number {
    return 2 * this.config.PURCHASE_PROVIDER_TIMEOUT_MS;
  }
}
