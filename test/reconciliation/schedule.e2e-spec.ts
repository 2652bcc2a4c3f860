import { johannesburgDayOf } from '#common';
import { ManualSandboxClock } from '../../apps/provider-sandbox/src/sandbox-clock.js';
import { cashPayout } from '../payout/payout-requests.js';
import { eventually, startPayoutStack, type PayoutStack } from '../support/payout-stack.js';
import { bearer } from '../support/vendors.js';

/**
 * The worker's own schedule, without the CLI: a payout the sandbox paid yesterday (its clock sits
 * on yesterday) is matched from yesterday's report by the worker alone. The interval is short
 * here; ticks are aligned to it, so the first one comes within half a second.
 */
describe('settlement report schedule', () => {
  let stack: PayoutStack;

  beforeAll(async () => {
    const aDayAgo = new Date(Date.now() - 24 * 60 * 60 * 1000);
    stack = await startPayoutStack({
      sandbox: { clock: new ManualSandboxClock(aDayAgo) },
      // Two days back: a run that crosses midnight in Johannesburg still covers the sandbox's day.
      config: { SETTLEMENT_INGEST_INTERVAL_MS: '500', SETTLEMENT_LOOKBACK_DAYS: '2' },
    });
  });
  afterAll(async () => stack?.close());

  it("ingests yesterday's reports on its own and matches the line", async () => {
    const vendor = await stack.vendor({ fundCents: 100_000n, name: 'Scheduled settlement vendor' });
    const payout = (await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout('55')).expect(200)).body.data;
    const yesterday = johannesburgDayOf(new Date(payout.paid_at));
    const [line] = await eventually(async () => {
      const rows = await stack.dataSource.query(
        `SELECT l.match_result, to_char(r.report_date, 'YYYY-MM-DD') AS report_date, r.provider
           FROM settlement_lines l JOIN settlement_reports r ON r.id = l.report_id
          WHERE l.payout_id = (SELECT id FROM payouts WHERE merchant_reference = $1)`,
        [payout.merchant_reference],
      );
      expect(rows).toHaveLength(1);
      return rows;
    }, 15_000);
    expect(line).toEqual({ match_result: 'matched', report_date: yesterday, provider: 'bank_a_instant_money' });
    // Every payout provider's report of that day is fetched in turn (this stack has no purchase sandbox: that fetch fails, logged, and the others still run).
    await eventually(async () => {
      const reports = await stack.dataSource.query(`SELECT provider FROM settlement_reports WHERE report_date = $1::date ORDER BY provider`, [yesterday]);
      expect(reports.map((report: { provider: string }) => report.provider)).toEqual(expect.arrayContaining(['bank_a_instant_money', 'bank_b_cardless', 'rtc_eft', 'voucher']));
    }, 15_000);
  });
});
