import type { SettlementDayState } from './persistence/settlement-days.repository.js';
import { blockersOf, isBlocked } from './settlement-close-status.js';

const state = (overrides: Partial<SettlementDayState> = {}): SettlementDayState => ({
  provider: 'rtc_eft',
  report_date: '2026-03-09',
  status: 'fetched',
  deadline_at: new Date('2026-03-10T10:00:00Z'),
  attempts: 1,
  last_attempt_at: null,
  last_error: null,
  fetched_at: new Date('2026-03-10T01:00:00Z'),
  missing_exception_id: null,
  closed_at: null,
  unmatched_lines: 0,
  open_exceptions: [],
  ...overrides,
});

describe('blockersOf', () => {
  // 23:30 UTC on 9 March is 01:30 on 10 March in Johannesburg: the 9th is over.
  const afterTheDay = new Date('2026-03-09T23:30:00Z');

  it('lets a finished, fetched day with every line matched and no open exception close', () => {
    expect(blockersOf(state(), afterTheDay)).toEqual({ report: null, day_not_over: false, unmatched_lines: 0, open_exceptions: [] });
    expect(isBlocked(blockersOf(state(), afterTheDay))).toBe(false);
  });

  it('names each blocker on its own', () => {
    expect(blockersOf(state({ status: 'expected', fetched_at: null }), afterTheDay).report).toBe('awaited');
    expect(blockersOf(state({ status: 'missing', fetched_at: null }), afterTheDay).report).toBe('missing');
    expect(blockersOf(state(), new Date('2026-03-09T21:59:00Z')).day_not_over).toBe(true);
    expect(isBlocked(blockersOf(state({ unmatched_lines: 2 }), afterTheDay))).toBe(true);
    expect(isBlocked(blockersOf(state({ open_exceptions: [{ id: 'e1', kind: 'missing_report' }] }), afterTheDay))).toBe(true);
  });
});
