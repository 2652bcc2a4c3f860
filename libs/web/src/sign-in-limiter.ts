import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { normaliseEmail, secretHash } from './secrets.js';

/** Attempts allowed per account (email) and per client address (generous: an office shares one) in one window. */
export const SIGN_IN_LIMITS = { perAccount: 5, perAddress: 100, windowMs: 15 * 60_000 };

export type SignInAdmission = { allowed: true } | { allowed: false; retryAfterSeconds: number; reason: 'limited' | 'unavailable' };

/**
 * Fixed windows in Redis counted on every attempt, per account and per address. Unlike the
 * gateways' request throttle it fails closed: if Redis cannot count,
 * sign-in is refused, since an unthrottled password form is the attack this exists to stop.
 */
export class SignInLimiter {
  private readonly logger = new Logger(SignInLimiter.name);

  /**
   * `namespace` starts with the queue prefix, so environments (and test runs) sharing one Redis
   * count separately, and names the app, so the dashboard and the back-office count apart.
   */
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
  ) {}

  /**
   * A correct sign-in clears the account's count, so the account limit counts consecutive
   * failures (a person signing in often is never locked out); the address count stays.
   */
  async succeeded(email: string): Promise<void> {
    await this.redis.del(accountKey(this.namespace, email, signInWindow())).catch(() => undefined);
  }

  async admit(email: string, address: string): Promise<SignInAdmission> {
    const now = Date.now();
    const window = signInWindow(now);
    // Hashed so that neither emails nor addresses appear as Redis keys.
    const account = accountKey(this.namespace, email, window);
    const client = `${this.namespace}:address:${digest(address)}:${window}`;
    const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * SIGN_IN_LIMITS.windowMs - now) / 1000));
    try {
      const results = await this.redis.multi().incr(account).pexpire(account, 2 * SIGN_IN_LIMITS.windowMs).incr(client).pexpire(client, 2 * SIGN_IN_LIMITS.windowMs).exec();
      const accountCount = Number(results?.[0]?.[1]);
      const addressCount = Number(results?.[2]?.[1]);
      if (!Number.isFinite(accountCount) || !Number.isFinite(addressCount)) throw new Error('unexpected INCR reply');
      if (accountCount > SIGN_IN_LIMITS.perAccount || addressCount > SIGN_IN_LIMITS.perAddress) return { allowed: false, retryAfterSeconds, reason: 'limited' };
      return { allowed: true };
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'Sign-in limiter unavailable; sign-in refused');
      return { allowed: false, retryAfterSeconds: 60, reason: 'unavailable' };
    }
  }
}

/** Key of an account's counter in the current window. */
export function signInWindow(now = Date.now()): number {
  return Math.floor(now / SIGN_IN_LIMITS.windowMs);
}

function accountKey(namespace: string, email: string, window: number): string {
  return `${namespace}:account:${digest(normaliseEmail(email))}:${window}`;
}

/** A key's SHA-256 (the same hash as a stored secret's), shortened. */
const digest = (value: string) => secretHash(value).slice(0, 32);
