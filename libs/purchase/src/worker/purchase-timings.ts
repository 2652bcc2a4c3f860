import { Injectable } from '@nestjs/common';
import { GatewayEnv } from '#config';

/** The worker's clocks, from GatewayEnv (documented in docs/PURCHASE.md). */
@Injectable()
export class PurchaseTimings {
  constructor(private readonly config: GatewayEnv) {}

  /** Delay before the n-th check of a transaction (1-based): doubling from the initial delay, capped. */
  verifyDelayMs(checkNumber: number): number {
    const exponent = Math.min(Math.max(checkNumber - 1, 0), 20);
    return Math.min(this.config.PURCHASE_VERIFY_INITIAL_DELAY_MS * 2 ** exponent, this.config.PURCHASE_VERIFY_MAX_DELAY_MS);
  }

  get verificationWindowMs(): number {
    return this.config.PURCHASE_VERIFICATION_WINDOW_MS;
  }

  get notFoundSettleMs(): number {
    return this.config.PURCHASE_NOT_FOUND_SETTLE_MS;
  }

  get providerTimeoutMs(): number {
    return this.config.PURCHASE_PROVIDER_TIMEOUT_MS;
  }

  get reversalWatchMs(): number {
    return this.config.PURCHASE_REVERSAL_WATCH_MS;
  }

  get reversalWatchIntervalMs(): number {
    return this.config.PURCHASE_REVERSAL_WATCH_INTERVAL_MS;
  }

  get sweepIntervalMs(): number {
    return this.config.PURCHASE_SWEEP_INTERVAL_MS;
  }
}
