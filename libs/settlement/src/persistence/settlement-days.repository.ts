import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { SettlementProvider } from '../settlement-provider.js';

export type SettlementDayStatus = 'expected' | 'missing' | 'fetched' | 'closed';

/** One expected provider-day with what stands between it and its close (blockers counted in SQL). */
export interface SettlementDayState {
  provider: SettlementProvider;
  report_date: string;
  status: SettlementDayStatus;
  deadline_at: Date;
  attempts: number;
  last_attempt_at: Date | null;
  last_error: string | null;
  fetched_at: Date | null;
  missing_exception_id: string | null;
  closed_at: Date | null;
  /** Lines of the day's report not matched yet (an ingestion was interrupted). */
  unmatched_lines: number;
  /** Open exceptions of the provider-day: raised from its report, or naming a record one of its lines matched. */
  open_exceptions: { id: string; kind: string }[];
}

export interface ExpectedDay {
  provider: SettlementProvider;
  day: string;
  deadlineAt: Date;
}

const STATE = `
  SELECT d.provider, to_char(d.report_date, 'YYYY-MM-DD') AS report_date, d.status, d.deadline_at, d.attempts, d.last_attempt_at, d.last_error,
         d.fetched_at, d.missing_exception_id, d.closed_at,
         (SELECT count(*) FROM settlement_lines l JOIN settlement_reports r ON r.id = l.report_id
           WHERE r.provider = d.provider AND r.report_date = d.report_date AND l.match_result IS NULL)::int AS unmatched_lines,
         COALESCE((
           SELECT json_agg(json_build_object('id', e.id, 'kind', e.kind) ORDER BY e.raised_at, e.id) FROM reconciliation_exceptions e
            WHERE e.status = 'open' AND (
              (e.provider = d.provider AND e.report_date = d.report_date)
              OR EXISTS (SELECT 1 FROM settlement_lines l JOIN settlement_reports r ON r.id = l.report_id
                          WHERE r.provider = d.provider AND r.report_date = d.report_date
                            AND (l.exception_id = e.id OR l.payout_id = e.payout_id OR l.purchase_transaction_id = e.purchase_transaction_id)))
         ), '[]'::json) AS open_exceptions
    FROM settlement_days d`;

/**
 * The payout account's day per vendor, from the ledger alone: opening balances (every entry
 * before the day), the day's movements by kind (a settle entry holds amount + fee: the payout's
 * amount is "settled", the rest its fee), and closing balances (every entry before its end).
 * $1 start, $2 end (exclusive), $3 the day.
 */
const PAYOUT_DAILY_BALANCES = `
  INSERT INTO payout_daily_balances (vendor_id, balance_date, opening_available_cents, opening_reserved_cents, funded_cents, reserved_cents,
                                     settled_amount_cents, settled_fee_cents, released_cents, reversed_cents, resettled_cents,
                                     adjusted_debit_cents, adjusted_credit_cents, closing_available_cents, closing_reserved_cents)
  SELECT e.vendor_id, $3::date,
         COALESCE(sum(e.available_delta_cents) FILTER (WHERE e.created_at < $1), 0),
         COALESCE(sum(e.reserved_delta_cents) FILTER (WHERE e.created_at < $1), 0),
         COALESCE(sum(e.amount_cents) FILTER (WHERE e.created_at >= $1 AND e.kind = 'fund'), 0),
         COALESCE(sum(e.amount_cents) FILTER (WHERE e.created_at >= $1 AND e.kind = 'reserve'), 0),
         COALESCE(sum(p.amount_cents) FILTER (WHERE e.created_at >= $1 AND e.kind = 'settle'), 0),
         COALESCE(sum(e.amount_cents - p.amount_cents) FILTER (WHERE e.created_at >= $1 AND e.kind = 'settle'), 0),
         COALESCE(sum(e.amount_cents) FILTER (WHERE e.created_at >= $1 AND e.kind = 'release'), 0),
         COALESCE(sum(e.amount_cents) FILTER (WHERE e.created_at >= $1 AND e.kind = 'reverse'), 0),
         COALESCE(sum(e.amount_cents) FILTER (WHERE e.created_at >= $1 AND e.kind = 'resettle'), 0),
         COALESCE(sum(e.amount_cents) FILTER (WHERE e.created_at >= $1 AND e.kind = 'adjust_debit'), 0),
         COALESCE(sum(e.amount_cents) FILTER (WHERE e.created_at >= $1 AND e.kind = 'adjust_credit'), 0),
         sum(e.available_delta_cents), sum(e.reserved_delta_cents)
    FROM ledger_entries e LEFT JOIN payouts p ON p.id = e.payout_id
   WHERE e.created_at < $2
   GROUP BY e.vendor_id
  ON CONFLICT (vendor_id, balance_date) DO NOTHING RETURNING vendor_id`;

/** The day's purchases per vendor: charged (completed that day) and reversed (reversed that day), by what the vendor was charged. */
const PURCHASE_DAILY_TOTALS = `
  INSERT INTO purchase_daily_totals (vendor_id, total_date, charged_count, charged_cents, reversed_count, reversed_cents, net_cents)
  SELECT vendor_id, $3::date, charged_count, charged_cents, reversed_count, reversed_cents, charged_cents - reversed_cents
    FROM (SELECT vendor_id,
                 count(*) FILTER (WHERE completed_at >= $1 AND completed_at < $2)::int AS charged_count,
                 COALESCE(sum(charge_cents) FILTER (WHERE completed_at >= $1 AND completed_at < $2), 0) AS charged_cents,
                 count(*) FILTER (WHERE reversed_at >= $1 AND reversed_at < $2)::int AS reversed_count,
                 COALESCE(sum(charge_cents) FILTER (WHERE reversed_at >= $1 AND reversed_at < $2), 0) AS reversed_cents
            FROM purchase_transactions
           WHERE (completed_at >= $1 AND completed_at < $2) OR (reversed_at >= $1 AND reversed_at < $2)
           GROUP BY vendor_id) totals
  ON CONFLICT (vendor_id, total_date) DO NOTHING RETURNING vendor_id`;

/** One Johannesburg day and its bounds. */
export interface DayRange {
  day: string;
  start: Date;
  endExclusive: Date;
}

/**
 * `settlement_days`, and the daily balances written when days close: which provider-days are
 * expected, fetched, missing or closed, and what blocks each. The state query reads the
 * settlement and exception tables for the close's own question.
 */
@Injectable()
export class SettlementDaysRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records the days the schedule expects (a day already recorded keeps its row). */
  async expect(days: readonly ExpectedDay[]): Promise<void> {
    if (days.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO settlement_days (provider, report_date, deadline_at)
       SELECT * FROM unnest($1::text[], $2::date[], $3::timestamptz[]) ON CONFLICT (provider, report_date) DO NOTHING`,
      [days.map((day) => day.provider), days.map((day) => day.day), days.map((day) => day.deadlineAt.toISOString())],
    );
  }

  /** A fetch that failed: counted, with its error; the day is recorded if it was not. */
  async recordFailure(expected: ExpectedDay, error: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO settlement_days (provider, report_date, deadline_at, attempts, last_attempt_at, last_error) VALUES ($1, $2::date, $3, 1, now(), $4)
       ON CONFLICT (provider, report_date) DO UPDATE SET attempts = settlement_days.attempts + 1, last_attempt_at = now(), last_error = EXCLUDED.last_error`,
      [expected.provider, expected.day, expected.deadlineAt.toISOString(), error.slice(0, 500)],
    );
  }

  /** The finished day's report is in and matched. A closed day stays closed (a re-ingestion finds later disagreements as exceptions). */
  async recordFetched(expected: ExpectedDay): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO settlement_days (provider, report_date, deadline_at, status, attempts, last_attempt_at, fetched_at) VALUES ($1, $2::date, $3, 'fetched', 1, now(), now())
       ON CONFLICT (provider, report_date) DO UPDATE SET attempts = settlement_days.attempts + 1, last_attempt_at = now(), last_error = NULL, fetched_at = now(),
         status = CASE WHEN settlement_days.status = 'closed' THEN 'closed' ELSE 'fetched' END`,
      [expected.provider, expected.day, expected.deadlineAt.toISOString()],
    );
  }

  /** Recorded days whose report never arrived, before `beforeDay` (the schedule asks for them again), oldest first. */
  async unfetchedBefore(beforeDay: string): Promise<{ provider: SettlementProvider; day: string }[]> {
    return (await this.dataSource.query(
      `SELECT provider, to_char(report_date, 'YYYY-MM-DD') AS day FROM settlement_days WHERE fetched_at IS NULL AND report_date < $1::date ORDER BY report_date, provider`,
      [beforeDay],
    )) as { provider: SettlementProvider; day: string }[];
  }

  /**
   * Locks each expected day whose deadline passed by `now` and hands it to `raise` (which raises its
   * exception in the same transaction); the day becomes `missing`. The status guard and the row
   * lock make it once per day, whichever replica gets there first.
   */
  async markOverdue(now: Date, raise: (manager: EntityManager, day: { provider: SettlementProvider; day: string; deadline_at: Date; attempts: number; last_error: string | null }) => Promise<string>): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const overdue = (await manager.query(
        `SELECT provider, to_char(report_date, 'YYYY-MM-DD') AS day, deadline_at, attempts, last_error FROM settlement_days
          WHERE status = 'expected' AND deadline_at <= $1 ORDER BY report_date, provider FOR UPDATE SKIP LOCKED`,
        [now.toISOString()],
      )) as { provider: SettlementProvider; day: string; deadline_at: Date; attempts: number; last_error: string | null }[];
      for (const day of overdue) {
        const exceptionId = await raise(manager, day);
        await manager.query(`UPDATE settlement_days SET status = 'missing', missing_exception_id = $3 WHERE provider = $1 AND report_date = $2::date`, [day.provider, day.day, exceptionId]);
      }
      return overdue.length;
    });
  }

  /** Recorded days not closed, plus those closed on or after `closedSince`; one provider or day when given. Newest day first. */
  async states(filter: { provider?: string; day?: string; closedSince?: string }, manager: Pick<EntityManager, 'query'> = this.dataSource.manager): Promise<SettlementDayState[]> {
    return (await manager.query(
      `${STATE}
        WHERE ($1::text IS NULL OR d.provider = $1) AND ($2::date IS NULL OR d.report_date = $2::date)
          AND ($2::date IS NOT NULL OR d.status <> 'closed' OR d.report_date >= $3::date)
        ORDER BY d.report_date DESC, d.provider`,
      [filter.provider ?? null, filter.day ?? null, filter.closedSince ?? '9999-12-31'],
    )) as SettlementDayState[];
  }

  /**
   * Runs `work` in one transaction holding the provider-day's ingestion lock (the ingestor's
   * session lock has the same key: no ingestion of the day runs beside a close) and then the
   * date's close lock (the closes of one date take turns).
   */
  async withCloseLocks<T>(provider: SettlementProvider, day: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`settlement:${provider}:${day}`]);
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`settlement-close:${day}`]);
      return work(manager);
    });
  }

  async markClosed(manager: EntityManager, provider: SettlementProvider, day: string): Promise<void> {
    await manager.query(`UPDATE settlement_days SET status = 'closed', closed_at = now() WHERE provider = $1 AND report_date = $2::date AND status = 'fetched'`, [provider, day]);
  }

  /** Whether every one of `providers` has its day recorded and closed. */
  async allClosed(manager: EntityManager, providers: readonly SettlementProvider[], day: string): Promise<boolean> {
    const [{ closed }] = (await manager.query(
      `SELECT count(*)::int AS closed FROM settlement_days WHERE provider = ANY($1::text[]) AND report_date = $2::date AND status = 'closed'`,
      [providers, day],
    )) as { closed: number }[];
    return Number(closed) === providers.length;
  }

  /** Writes every vendor's payout balance of the day (once: a second call writes nothing); answers how many were written. */
  async writePayoutBalances(manager: EntityManager, range: DayRange): Promise<number> {
    return ((await manager.query(PAYOUT_DAILY_BALANCES, [range.start.toISOString(), range.endExclusive.toISOString(), range.day])) as unknown[]).length;
  }

  /** Writes every vendor's purchase totals of the day (once); answers how many were written. */
  async writePurchaseTotals(manager: EntityManager, range: DayRange): Promise<number> {
    return ((await manager.query(PURCHASE_DAILY_TOTALS, [range.start.toISOString(), range.endExclusive.toISOString(), range.day])) as unknown[]).length;
  }

  /** Fetched days not closed yet, oldest first: what the closer tries. */
  async closable(): Promise<{ provider: SettlementProvider; day: string }[]> {
    return (await this.dataSource.query(
      `SELECT provider, to_char(report_date, 'YYYY-MM-DD') AS day FROM settlement_days WHERE status = 'fetched' ORDER BY report_date, provider`,
    )) as { provider: SettlementProvider; day: string }[];
  }

  /** Days whose report is past its deadline and still not in (`missing`), by provider: the metric read at scrape time. */
  async missingByProvider(): Promise<{ provider: string; missing: number }[]> {
    return (await this.dataSource.query(`SELECT provider, count(*)::int AS missing FROM settlement_days WHERE status = 'missing' GROUP BY provider`)) as { provider: string; missing: number }[];
  }
}
