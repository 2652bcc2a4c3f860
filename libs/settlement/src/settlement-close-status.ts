import { Injectable } from '@nestjs/common';
import { johannesburgDayOf, parseIsoDay } from '#common';
import { SettlementClock } from './settlement-clock.js';
import { SettlementDaysRepository, type SettlementDayState } from './persistence/settlement-days.repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What stands between a provider-day and its close; nothing blocks when every field is empty or false. */
export interface DayBlockers {
  /** `awaited`: not fetched yet, its deadline still ahead; `missing`: past its deadline (a `missing_report` exception). */
  report: 'awaited' | 'missing' | null;
  /** The Johannesburg day is still running: its report is not final. */
  day_not_over: boolean;
  unmatched_lines: number;
  open_exceptions: { id: string; kind: string }[];
}

export interface SettlementDayView {
  provider: string;
  report_date: string;
  status: SettlementDayState['status'];
  deadline_at: string;
  attempts: number;
  last_error: string | null;
  fetched_at: string | null;
  closed_at: string | null;
  missing_exception_id: string | null;
  blocked: boolean;
  blockers: DayBlockers;
}

export function blockersOf(state: SettlementDayState, now: Date): DayBlockers {
  const fetched = state.status === 'fetched' || state.status === 'closed';
  return {
    report: fetched ? null : state.status === 'missing' ? 'missing' : 'awaited',
    day_not_over: state.report_date >= johannesburgDayOf(now),
    unmatched_lines: state.unmatched_lines,
    open_exceptions: state.open_exceptions,
  };
}

export function isBlocked(blockers: DayBlockers): boolean {
  return blockers.report !== null || blockers.day_not_over || blockers.unmatched_lines > 0 || blockers.open_exceptions.length > 0;
}

const iso = (value: Date | null) => (value === null ? null : new Date(value).toISOString());

/**
 * The close status of the provider-days (`ops close:status`, the back-office Close page): every
 * day not closed yet, and those closed in the last `CLOSED_SHOWN_DAYS`, with what blocks each.
 */
@Injectable()
export class SettlementCloseStatus {
  static readonly CLOSED_SHOWN_DAYS = 7;

  constructor(
    private readonly days: SettlementDaysRepository,
    private readonly clock: SettlementClock,
  ) {}

  async list(filter: { provider?: string; day?: string } = {}): Promise<SettlementDayView[]> {
    const now = this.clock.now();
    const closedSince = johannesburgDayOf(new Date(now.getTime() - SettlementCloseStatus.CLOSED_SHOWN_DAYS * DAY_MS));
    const states = await this.days.states({ provider: filter.provider, day: filter.day === undefined ? undefined : parseIsoDay(filter.day), closedSince });
    return states.map((state) => {
      const blockers = state.status === 'closed' ? { report: null, day_not_over: false, unmatched_lines: 0, open_exceptions: [] } : blockersOf(state, now);
      return {
        provider: state.provider,
        report_date: state.report_date,
        status: state.status,
        deadline_at: new Date(state.deadline_at).toISOString(),
        attempts: state.attempts,
        last_error: state.last_error,
        fetched_at: iso(state.fetched_at),
        closed_at: iso(state.closed_at),
        missing_exception_id: state.missing_exception_id,
        blocked: state.status !== 'closed' && isBlocked(blockers),
        blockers,
      };
    });
  }
}
