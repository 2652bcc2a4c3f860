import { loadConfig } from '#config';
import { NOT_FOUND_PROOF_STREAK } from '#providers';
import { PurchaseTimings } from './purchase-timings.js';

/** Two counted "not found" answers fail a purchase (NOT_FOUND_PROOF_STREAK, #providers). */
const PROOF_STREAK = NOT_FOUND_PROOF_STREAK;

/**
 * Replays the worker's schedule for a purchase the provider never created (sandbox 03: the create
 * answers 500 after `answerAfterMs`) and returns when the second counted "not found" fails it.
 * The checks follow VerifyPurchaseHandler: the first `verifyDelayMs(1)` after the submission, each
 * later one `pendingCheckDelayMs(n, streak)` after the previous; the rule that a search counts is
 * the recorder's own (`notFoundCounts`).
 */
function msUntilFailed(timings: PurchaseTimings, answerAfterMs: number | null): number {
  const attempt = { attemptedAtMs: 0, endedAtMs: answerAfterMs };
  let now = Math.max(answerAfterMs ?? 0, 0) + timings.verifyDelayMs(1);
  let streak = 0;
  for (let check = 1; check < 100; check += 1) {
    if (timings.notFoundCounts(now, attempt)) streak += 1;
    if (streak >= PROOF_STREAK) return now;
    now += timings.pendingCheckDelayMs(check + 1, streak);
  }
  throw new Error('never failed');
}

describe('PurchaseTimings: failure latency of a purchase the provider never created', () => {
  const defaults = new PurchaseTimings(loadConfig({ APP_ENV: 'test' }, {}));

  it('with default settings, sandbox 03 (create answered 500 at once) fails in under 30 s', () => {
    const failedAfter = msUntilFailed(defaults, 50);
    expect(failedAfter).toBeLessThan(30_000);
    // Both counted searches come after the settle period: the safety rule is unchanged.
    expect(failedAfter).toBeGreaterThanOrEqual(50 + 10_000);
  });

  it('an unanswered create (timeout) still waits the full provider timeout plus the settle period', () => {
    const failedAfter = msUntilFailed(defaults, null);
    expect(failedAfter).toBeGreaterThanOrEqual(10_000 + 10_000);
    expect(failedAfter).toBeLessThan(60_000);
  });

  it('a "not found" before the attempt ended plus the settle period never counts', () => {
    const attempt = { attemptedAtMs: 0, endedAtMs: 1_000 };
    expect(defaults.notFoundCounts(10_999, attempt)).toBe(false);
    expect(defaults.notFoundCounts(11_000, attempt)).toBe(true);
    expect(defaults.notFoundCounts(19_999, { attemptedAtMs: 0, endedAtMs: null })).toBe(false);
  });

  it('only a pending proof shortens the backoff; otherwise checks double up to the maximum', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => defaults.pendingCheckDelayMs(n, 0))).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    expect(defaults.pendingCheckDelayMs(5, 1)).toBe(5_000);
    expect(defaults.pendingCheckDelayMs(2, 1)).toBe(4_000);
  });
});

describe('PurchaseTimings: the reversal watch after completion', () => {
  const MINUTE = 60_000;
  const HOUR = 60 * MINUTE;

  /** The times after completion (ms) at which the watch looks, replayed the way the verification schedules them. */
  function watchChecks(timings: PurchaseTimings, watchMs: number): number[] {
    const checks: number[] = [];
    let elapsed = 0;
    while (elapsed < watchMs && checks.length < 1_000) {
      elapsed += timings.reversalWatchDelayMs(watchMs - elapsed);
      checks.push(elapsed);
    }
    return checks;
  }

  it('with default settings looks 9 times in 24 h, spaced by how long the purchase has been completed, the last at the end of the watch', () => {
    const defaults = new PurchaseTimings(loadConfig({ APP_ENV: 'test' }, {}));
    expect(watchChecks(defaults, 24 * HOUR)).toEqual([15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR]);
  });

  it('a maximum interval equal to the first interval is the fixed schedule (96 checks in 24 h)', () => {
    const fixed = new PurchaseTimings(loadConfig({ APP_ENV: 'test', PURCHASE_REVERSAL_WATCH_MAX_INTERVAL_MS: String(15 * MINUTE) }, {}));
    const checks = watchChecks(fixed, 24 * HOUR);
    expect(checks).toHaveLength(96);
    expect(new Set(checks.map((at, index) => at - (checks[index - 1] ?? 0)))).toEqual(new Set([15 * MINUTE]));
  });

  it('never schedules past the end of the watch', () => {
    const defaults = new PurchaseTimings(loadConfig({ APP_ENV: 'test' }, {}));
    expect(defaults.reversalWatchDelayMs(5_000)).toBe(5_000);
    expect(defaults.reversalWatchDelayMs(24 * HOUR)).toBe(15 * MINUTE);
  });
});
