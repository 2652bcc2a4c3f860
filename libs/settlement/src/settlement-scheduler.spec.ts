import type { GatewayEnv } from '#config';
import type { SettlementIngestor } from './settlement-ingestor.js';
import { SettlementScheduler } from './settlement-scheduler.js';

describe('SettlementScheduler.daysToIngest', () => {
  const scheduler = (lookbackDays: number) =>
    // Only the ingestor and the config take part in choosing the days.
    new SettlementScheduler({} as SettlementIngestor, { SETTLEMENT_LOOKBACK_DAYS: lookbackDays, SETTLEMENT_INGEST_INTERVAL_MS: 3_600_000 } as GatewayEnv, {} as never, {} as never, {} as never, {} as never, {} as never);

  it('covers only finished Johannesburg days, oldest first', () => {
    // 23:30 UTC on 9 March is already 01:30 on 10 March in Johannesburg: the 9th has just finished.
    expect(scheduler(2).daysToIngest(new Date('2026-03-09T23:30:00Z'))).toEqual(['2026-03-08', '2026-03-09']);
    expect(scheduler(1).daysToIngest(new Date('2026-03-09T21:59:00Z'))).toEqual(['2026-03-08']);
  });

  it('crosses month and year ends', () => {
    expect(scheduler(3).daysToIngest(new Date('2026-01-01T10:00:00Z'))).toEqual(['2025-12-29', '2025-12-30', '2025-12-31']);
  });
});
