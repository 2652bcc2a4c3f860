import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { johannesburgDayRange, parseIsoDay } from '#common';
import { blockersOf, isBlocked, type DayBlockers } from './settlement-close-status.js';
import { SettlementClock } from './settlement-clock.js';
import { SETTLEMENT_PROVIDERS, type SettlementProvider } from './settlement-provider.js';
import { SettlementDaysRepository } from './persistence/settlement-days.repository.js';

export type CloseOutcome =
  | { provider: SettlementProvider; report_date: string; closed: true; already_closed: boolean; payout_balances_written: number; purchase_totals_written: number }
  | { provider: SettlementProvider; report_date: string; closed: false; blockers: DayBlockers | null };

const PAYOUT_PROVIDERS = SETTLEMENT_PROVIDERS.filter((provider) => provider !== 'dvs');

/**
 * Closes provider-days (docs/RECONCILIATION.md, "Closing a day"). A day closes when it is over,
 * its report is in, every line of it is matched, and no exception of it is open. Closing the
 * purchase provider's day writes the day's purchase totals per vendor; closing the last of a
 * date's payout provider-days writes every vendor's payout account balance of that date. Each
 * close is one transaction holding the provider-day's ingestion lock (no ingestion runs beside
 * it) and then the date's close lock (the date's closes take turns, so exactly one sees the last
 * payout day close): re-running, or two workers at once, closes once and writes once.
 */
@Injectable()
export class SettlementDayCloser {
  private readonly logger = new Logger(SettlementDayCloser.name);

  constructor(
    private readonly days: SettlementDaysRepository,
    private readonly clock: SettlementClock,
  ) {}

  /** Tries every fetched day not closed yet, oldest first (the schedule runs it after each ingestion). */
  async closeReady(): Promise<CloseOutcome[]> {
    const outcomes: CloseOutcome[] = [];
    for (const { provider, day } of await this.days.closable()) outcomes.push(await this.close(provider, day));
    return outcomes;
  }

  async close(provider: SettlementProvider, rawDay: string): Promise<CloseOutcome> {
    const day = parseIsoDay(rawDay);
    const now = this.clock.now();
    const outcome = await this.days.withCloseLocks(provider, day, async (manager): Promise<CloseOutcome> => {
      const [state] = await this.days.states({ provider, day }, manager);
      if (!state) return { provider, report_date: day, closed: false, blockers: null };
      if (state.status === 'closed') return { provider, report_date: day, closed: true, already_closed: true, payout_balances_written: 0, purchase_totals_written: 0 };
      const blockers = blockersOf(state, now);
      if (isBlocked(blockers)) return { provider, report_date: day, closed: false, blockers };
      await this.days.markClosed(manager, provider, day);
      const written = await this.writeBooks(manager, provider, day);
      return { provider, report_date: day, closed: true, already_closed: false, ...written };
    });
    if (outcome.closed && !outcome.already_closed) this.logger.log(outcome, 'Settlement day closed');
    return outcome;
  }

  private async writeBooks(manager: EntityManager, provider: SettlementProvider, day: string): Promise<{ payout_balances_written: number; purchase_totals_written: number }> {
    const { start, endExclusive } = johannesburgDayRange(day);
    const range = { day, start, endExclusive };
    if (provider === 'dvs') return { payout_balances_written: 0, purchase_totals_written: await this.days.writePurchaseTotals(manager, range) };
    // The payout account spans every payout provider: its day closes with the last of them.
    if (!(await this.days.allClosed(manager, PAYOUT_PROVIDERS, day))) return { payout_balances_written: 0, purchase_totals_written: 0 };
    return { payout_balances_written: await this.days.writePayoutBalances(manager, range), purchase_totals_written: 0 };
  }
}
