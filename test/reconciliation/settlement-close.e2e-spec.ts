import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { johannesburgDayOf } from '#common';
import { checkInvariants } from '#invariants';
import { MetricsService } from '#observability';
import { ReconciliationExceptionsService } from '#reconciliation';
import { SettlementClock, SettlementDayCloser, SettlementScheduler } from '#settlement';
import { ManualSandboxClock } from '../../apps/provider-sandbox/src/sandbox-clock.js';
import { cashPayout } from '../payout/payout-requests.js';
import { eventually, PAYOUT_SANDBOX_KEY, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { createScratchDatabase } from '../support/scratch-database.js';
import { bearer } from '../support/vendors.js';

const run = promisify(execFile);
const CLI = 'dist/apps/ops/src/main.js';
const DAY_MS = 24 * 60 * 60 * 1000;
const TODAY = johannesburgDayOf(new Date());
/** Four days back: behind the two-day look-back, and its deadline (36 h after it ended) long past. */
const OLD_DAY = johannesburgDayOf(new Date(Date.now() - 4 * DAY_MS));
const dayAfter = (day: string) => johannesburgDayOf(new Date(Date.parse(`${day}T12:00:00+02:00`) + DAY_MS));
/** 10:00 in Johannesburg on the day after `day`. */
const morningAfter = (day: string) => new Date(`${dayAfter(day)}T10:00:00+02:00`);

/**
 * Every provider-day is closed (issue 26): the schedule records the days it expects, asks again
 * for a report that never came however far behind the look-back it falls, raises
 * `missing_report` once past the deadline, and closes a day only when nothing blocks it, writing
 * per-vendor daily balances that equal the ledger. This file runs on a database of its own: it
 * moves the settlement side's clock to close today, which must not close today for the other
 * files of the run.
 */
describe('closing provider-days', () => {
  let stack: PayoutStack;
  let sandboxClock: ManualSandboxClock;
  let settlementClock: SettlementClock;
  let scheduler: SettlementScheduler;
  let closer: SettlementDayCloser;
  let databaseUrl: string;
  let dropDatabase: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ url: databaseUrl, drop: dropDatabase } = await createScratchDatabase('close'));
    sandboxClock = new ManualSandboxClock(new Date(`${OLD_DAY}T10:00:00+02:00`));
    stack = await startPayoutStack({
      sandbox: { clock: sandboxClock },
      purchaseReports: true,
      config: { DATABASE_URL: databaseUrl, SETTLEMENT_LOOKBACK_DAYS: '2', SETTLEMENT_REPORT_DEADLINE_MS: String(36 * 60 * 60 * 1000) },
    });
    settlementClock = stack.worker.get(SettlementClock);
    scheduler = stack.worker.get(SettlementScheduler);
    closer = stack.worker.get(SettlementDayCloser);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await dropDatabase?.();
  });

  const setSettlementTime = (at: Date | null) => {
    settlementClock.now = at === null ? () => new Date() : () => new Date(at);
  };
  const control = (path: string, body: unknown) =>
    fetch(`${stack.sandboxUrl}/__sandbox/settlement/${path}`, { method: 'POST', headers: { 'x-api-key': PAYOUT_SANDBOX_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const day = async (provider: string, reportDate: string) =>
    (
      await stack.dataSource.query(
        `SELECT status, attempts, last_error IS NOT NULL AS failed_before, fetched_at IS NOT NULL AS fetched, missing_exception_id, closed_at IS NOT NULL AS closed
           FROM settlement_days WHERE provider = $1 AND report_date = $2::date`,
        [provider, reportDate],
      )
    )[0];
  const missingReports = async () =>
    (await stack.dataSource.query(`SELECT id, provider, to_char(report_date, 'YYYY-MM-DD') AS report_date, status, domain FROM reconciliation_exceptions WHERE kind = 'missing_report' ORDER BY raised_at`)) as {
      id: string;
      provider: string;
      report_date: string;
      status: string;
      domain: string;
    }[];
  const paidPayout = async (vendor: PayoutTestVendor, testValue: '55' | '01' = '55') => {
    const response = await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout(testValue));
    const reference = (response.body.data?.merchant_reference ?? response.body.details?.merchant_reference) as string | undefined;
    return eventually(async () => {
      const [row] = await stack.dataSource.query(`SELECT id, merchant_reference, status FROM payouts WHERE vendor_id = $1 AND ($2::text IS NULL OR merchant_reference = $2) ORDER BY created_at DESC LIMIT 1`, [vendor.vendor.id, reference ?? null]);
      expect(row.status).toBe(testValue === '55' ? 'paid' : 'failed');
      return row as { id: string; merchant_reference: string };
    });
  };
  const ops = async (...args: string[]) => {
    const env = { PATH: process.env.PATH, APP_ENV: 'test', DATABASE_URL: databaseUrl, REDIS_URL: process.env.E2E_REDIS_URL };
    const { stdout } = await run('node', [CLI, ...args], { env, timeout: 30_000 });
    return JSON.parse(stdout) as { days: { provider: string; report_date: string; status: string; blocked: boolean; blockers: { report: string | null; open_exceptions: { id: string; kind: string }[] } }[] };
  };
  const violations = async (invariants: string[]) =>
    (await checkInvariants((sql, parameters) => stack.dataSource.query(sql, parameters))).violations.filter((violation) => invariants.includes(violation.invariant));

  describe('a report the provider does not publish', () => {
    let vendor: PayoutTestVendor;
    let payout: { id: string; merchant_reference: string };

    it('is retried past its deadline, raises missing_report once (counted), and is ingested when the provider is back, beyond the look-back', async () => {
      vendor = await stack.vendor({ fundCents: 100_000n, name: 'Missing report vendor' });
      payout = await paidPayout(vendor);
      expect((await control(`bank_a_instant_money/availability/${OLD_DAY}`, { available: false })).status).toBe(200);

      // The morning after: the day is in the look-back, its report fails, and its deadline is still ahead.
      setSettlementTime(morningAfter(OLD_DAY));
      await scheduler.runOnce();
      expect(await day('bank_a_instant_money', OLD_DAY)).toMatchObject({ status: 'expected', attempts: 1, failed_before: true, fetched: false });
      expect(await day('rtc_eft', OLD_DAY)).toMatchObject({ status: 'closed', fetched: true });
      expect(await missingReports()).toEqual([]);

      // Four days on: far behind the look-back, still asked for; past its deadline, raised once.
      setSettlementTime(null);
      await scheduler.runOnce();
      await scheduler.runOnce();
      const [missing] = await missingReports();
      expect(await missingReports()).toEqual([{ id: missing.id, provider: 'bank_a_instant_money', report_date: OLD_DAY, status: 'open', domain: 'payout' }]);
      expect(await day('bank_a_instant_money', OLD_DAY)).toMatchObject({ status: 'missing', attempts: 3, fetched: false, missing_exception_id: missing.id });
      const metrics = stack.worker.get(MetricsService).registry;
      expect(await metrics.getSingleMetricAsString('settlement_reports_missing_total')).toContain('settlement_reports_missing_total{provider="bank_a_instant_money"} 1');
      expect(await metrics.getSingleMetricAsString('settlement_reports_missing')).toContain('settlement_reports_missing{provider="bank_a_instant_money"} 1');

      const status = await ops('close:status', '--date', OLD_DAY, '--provider', 'bank_a_instant_money');
      expect(status.days).toEqual([expect.objectContaining({ status: 'missing', blocked: true, blockers: expect.objectContaining({ report: 'missing', open_exceptions: [{ id: missing.id, kind: 'missing_report' }] }) })]);

      // The provider publishes it: the next tick ingests it as any other, and the line matches.
      expect((await control(`bank_a_instant_money/availability/${OLD_DAY}`, { available: true })).status).toBe(200);
      await scheduler.runOnce();
      expect(await day('bank_a_instant_money', OLD_DAY)).toMatchObject({ status: 'fetched', attempts: 4, fetched: true, closed: false });
      const lines = await stack.dataSource.query(
        `SELECT l.match_result, to_char(r.report_date, 'YYYY-MM-DD') AS report_date FROM settlement_lines l JOIN settlement_reports r ON r.id = l.report_id WHERE l.payout_id = $1`,
        [payout.id],
      );
      expect(lines).toEqual([{ match_result: 'matched', report_date: OLD_DAY }]);
      expect(await missingReports()).toHaveLength(1);
    });

    it('keeps the day open until its missing_report exception is resolved', async () => {
      const [missing] = await missingReports();
      expect(await closer.close('bank_a_instant_money', OLD_DAY)).toMatchObject({ closed: false, blockers: { report: null, open_exceptions: [{ id: missing.id, kind: 'missing_report' }] } });
      expect(await stack.worker.get(ReconciliationExceptionsService).resolve(missing.id, 'e2e operator', 'the provider published the report late')).toBe(true);
      await scheduler.runOnce();
      expect(await day('bank_a_instant_money', OLD_DAY)).toMatchObject({ status: 'closed' });
    });
  });

  describe('a day with payouts', () => {
    let vendor: PayoutTestVendor;

    it('closes only when nothing blocks it, once under concurrent closes, and its per-vendor balance equals the ledger', async () => {
      sandboxClock.advance(Date.now() - sandboxClock.now().getTime());
      vendor = await stack.vendor({ fundCents: 100_000n, feePerPayoutCents: 500n, name: 'Closing day vendor' });
      await paidPayout(vendor);
      const disputed = await paidPayout(vendor);
      await paidPayout(vendor, '01');
      // The provider reports another amount for one payout: an exception for staff.
      expect((await control(`bank_a_instant_money/lines/${disputed.merchant_reference}`, { amount: '210.00' })).status).toBe(200);

      // Tomorrow morning: today's reports are final and ingested; the disputed line blocks its provider-day.
      setSettlementTime(morningAfter(TODAY));
      await scheduler.runOnce();
      const [mismatch] = await stack.dataSource.query(`SELECT id, kind FROM reconciliation_exceptions WHERE payout_id = $1 AND status = 'open'`, [disputed.id]);
      expect(mismatch.kind).toBe('amount_mismatch');
      expect(await day('bank_a_instant_money', TODAY)).toMatchObject({ status: 'fetched', closed: false });
      for (const provider of ['dvs', 'bank_b_cardless', 'rtc_eft', 'voucher']) expect(await day(provider, TODAY)).toMatchObject({ status: 'closed' });
      expect(await closer.close('bank_a_instant_money', TODAY)).toMatchObject({ closed: false, blockers: { report: null, day_not_over: false, unmatched_lines: 0, open_exceptions: [{ id: mismatch.id, kind: 'amount_mismatch' }] } });
      // The payout account's day closes with the last payout provider: nothing written yet.
      expect(await stack.dataSource.query(`SELECT vendor_id FROM payout_daily_balances WHERE balance_date = $1::date`, [TODAY])).toEqual([]);
      const status = await ops('close:status', '--date', TODAY, '--provider', 'bank_a_instant_money');
      expect(status.days[0]).toMatchObject({ status: 'fetched', blocked: true, blockers: { open_exceptions: [{ id: mismatch.id, kind: 'amount_mismatch' }] } });

      expect(await stack.worker.get(ReconciliationExceptionsService).resolve(mismatch.id, 'e2e operator', 'provider confirmed 200.00')).toBe(true);
      const outcomes = await Promise.all([closer.close('bank_a_instant_money', TODAY), closer.close('bank_a_instant_money', TODAY), closer.closeReady()]);
      const closes = outcomes.flat().filter((outcome) => outcome.provider === 'bank_a_instant_money' && outcome.report_date === TODAY);
      expect(closes.every((outcome) => outcome.closed)).toBe(true);
      expect(closes.filter((outcome) => outcome.closed && !outcome.already_closed)).toHaveLength(1);
      expect(await day('bank_a_instant_money', TODAY)).toMatchObject({ status: 'closed' });

      const [balance] = await stack.dataSource.query(
        `SELECT opening_available_cents::text AS opening_available, opening_reserved_cents::text AS opening_reserved, funded_cents::text AS funded, reserved_cents::text AS reserved,
                settled_amount_cents::text AS settled, settled_fee_cents::text AS fees, released_cents::text AS released, reversed_cents::text AS reversed,
                resettled_cents::text AS resettled, adjusted_debit_cents::text AS adjusted_debit, adjusted_credit_cents::text AS adjusted_credit,
                closing_available_cents::text AS closing_available, closing_reserved_cents::text AS closing_reserved
           FROM payout_daily_balances WHERE vendor_id = $1 AND balance_date = $2::date`,
        [vendor.vendor.id, TODAY],
      );
      // Funded 1,000.00; three payouts of 200.00 + 5.00 held; two paid, one rejected and released.
      expect(balance).toEqual({
        opening_available: '0', opening_reserved: '0', funded: '100000', reserved: '61500', settled: '40000', fees: '1000', released: '20500', reversed: '0',
        resettled: '0', adjusted_debit: '0', adjusted_credit: '0', closing_available: '59000', closing_reserved: '0',
      });
      const [account] = await stack.dataSource.query(`SELECT available_cents::text AS available, reserved_cents::text AS reserved FROM payout_accounts WHERE vendor_id = $1`, [vendor.vendor.id]);
      expect({ available: balance.closing_available, reserved: balance.closing_reserved }).toEqual(account);
      // One row per vendor with entries (the other test's vendor too), written once.
      expect(await stack.dataSource.query(`SELECT count(*)::int AS rows FROM payout_daily_balances WHERE balance_date = $1::date`, [TODAY])).toEqual([{ rows: 2 }]);
      expect(await violations(['closedDayBalances', 'closedDayPurchaseTotals'])).toEqual([]);
    });

    it('is checked against the ledger: a tampered or missing daily balance is a violation', async () => {
      const subject = `${vendor.vendor.id}:${TODAY}`;
      // Still adding up on its own (the table's CHECK), but no longer what the ledger says.
      await stack.dataSource.query(`UPDATE payout_daily_balances SET funded_cents = funded_cents + 100, closing_available_cents = closing_available_cents + 100 WHERE vendor_id = $1 AND balance_date = $2::date`, [vendor.vendor.id, TODAY]);
      expect(await violations(['closedDayBalances'])).toEqual([
        expect.objectContaining({ invariant: 'closedDayBalances', subject, details: expect.objectContaining({ problem: 'the closed day balance differs from the ledger' }) }),
      ]);
      await stack.dataSource.query(`DELETE FROM payout_daily_balances WHERE vendor_id = $1 AND balance_date = $2::date`, [vendor.vendor.id, TODAY]);
      expect(await violations(['closedDayBalances'])).toEqual([
        expect.objectContaining({ invariant: 'closedDayBalances', subject, details: expect.objectContaining({ problem: 'a vendor with ledger entries has no balance for the closed day' }) }),
      ]);
    });
  });
});
