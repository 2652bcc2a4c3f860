import { loadConfig } from '#config';
import { PayoutPollSchedule } from './payout-poll-schedule.js';

const schedule = new PayoutPollSchedule(
  loadConfig(
    { APP_ENV: 'test' },
    { PAYOUT_PROVIDER_TIMEOUT_MS: '10000', PAYOUT_POLL_INITIAL_DELAY_MS: '5000', PAYOUT_POLL_MAX_INTERVAL_MS: '60000', PAYOUT_REVIEW_AFTER_MS: '3600000', PAYOUT_REVERSAL_WATCH_MS: '600000', PAYOUT_NOT_FOUND_SETTLE_MS: '60000', PAYOUT_REVIEW_POLL_INTERVAL_MS: '3600000' },
  ),
);
const t0 = new Date('2026-11-22T08:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

describe('PayoutPollSchedule', () => {
  it('polls first after the submission call has surely ended', () => {
    expect(schedule.firstPollAt(t0)).toEqual(at(15_000));
  });

  it('backs off exponentially up to the maximum interval', () => {
    expect([0, 1, 2, 3, 4, 10].map((link) => schedule.delayAfter(link))).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000]);
  });

  it('keeps polling a pending payout until the review window ends, then asks for review', () => {
    const pending = { status: 'pending' as const, submissionStartedAt: t0, createdAt: t0, paidAt: null };
    expect(schedule.next(pending, 0, at(1_000))).toEqual({ kind: 'poll', at: at(6_000) });
    expect(schedule.next(pending, 5, at(3_599_999))).toMatchObject({ kind: 'poll' });
    expect(schedule.next(pending, 5, at(3_600_000))).toEqual({ kind: 'review' });
  });

  it('watches a paid payout for reversal until the watch window ends, never beyond it', () => {
    const paid = { status: 'paid' as const, submissionStartedAt: t0, createdAt: t0, paidAt: t0 };
    expect(schedule.next(paid, 0, at(1_000))).toEqual({ kind: 'poll', at: at(6_000) });
    expect(schedule.next(paid, 9, at(590_000))).toEqual({ kind: 'poll', at: at(600_000) });
    expect(schedule.next(paid, 9, at(600_000))).toEqual({ kind: 'stop' });
  });

  it('keeps looking a needs_review payout up on the slow review interval', () => {
    expect(schedule.next({ status: 'needs_review', submissionStartedAt: t0, createdAt: t0, paidAt: null }, 40, at(1))).toEqual({ kind: 'poll', at: at(3_600_001) });
  });

  it('counts "not found" only after the attempt ended plus the settle period; an attempt without a recorded end ended two timeouts after the claim', () => {
    expect(schedule.submitWithinMs).toBe(10_000);
    expect(schedule.notFoundCountsFrom({ submissionStartedAt: t0, submissionAnsweredAt: at(3_000) })).toEqual(at(63_000));
    expect(schedule.notFoundCountsFrom({ submissionStartedAt: t0, submissionAnsweredAt: null })).toEqual(at(80_000));
    expect(schedule.notFoundCountsFrom({ submissionStartedAt: null, submissionAnsweredAt: null })).toBeNull();
  });

  it('stops for closed payouts', () => {
    for (const status of ['failed', 'reversed', 'cancelled'] as const) {
      expect(schedule.next({ status, submissionStartedAt: t0, createdAt: t0, paidAt: null }, 0, at(1))).toEqual({ kind: 'stop' });
    }
  });
});
