import { loadConfig } from '#config';
import { retryDelayMs, retrySpanMs } from './webhook-retry-schedule.js';

describe('webhook retry schedule', () => {
  it('doubles from the base and caps at the maximum delay', () => {
    expect([2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, 60_000, 200_000))).toEqual([60_000, 120_000, 200_000, 200_000]);
  });

  it('spans at least 72 hours with the default settings', () => {
    const config = loadConfig({ APP_ENV: 'development' });
    const span = retrySpanMs(config.WEBHOOK_MAX_ATTEMPTS, config.WEBHOOK_RETRY_BASE_MS, config.WEBHOOK_RETRY_MAX_DELAY_MS);
    expect(span).toBeGreaterThanOrEqual(72 * 3_600_000);
    // And not without bound: the last attempt falls within four days.
    expect(span).toBeLessThan(96 * 3_600_000);
  });
});
