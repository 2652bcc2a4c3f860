import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import request from 'supertest';
import { checkInvariants } from '#invariants';
import { SettlementIngestor, type IngestSummary } from '#settlement';
import { ManualSandboxClock } from '../../apps/provider-sandbox/src/sandbox-clock.js';
import { cashPayout, rtcPayout } from '../payout/payout-requests.js';
import { startBackOffice } from '../support/apps.js';
import { createStaffUser, nextCode } from '../support/back-office.js';
import { eventually, PAYOUT_SANDBOX_KEY, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { bearer } from '../support/vendors.js';

const run = promisify(execFile);
const CLI = 'dist/apps/ops/src/main.js';
const DAY_MS = 24 * 60 * 60 * 1000;
/** The sandbox's clock sits on a finished Johannesburg day of its own, so only this file's payouts are on its reports. */
const PAID_DAY = '2026-03-10';

/**
 * Payout settlement reports end to end: the sandbox's report over HTTP, the worker's ingestor,
 * the ledger in PostgreSQL. The payout's reversal happens in the sandbox after our watch has
 * ended (no callback, no poll), so only the report can find it.
 */
describe('payout settlement reports', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;
  let clock: ManualSandboxClock;
  let ingestor: SettlementIngestor;

  beforeAll(async () => {
    clock = new ManualSandboxClock(new Date(`${PAID_DAY}T08:00:00.000Z`));
    stack = await startPayoutStack({ sandbox: { clock } });
    vendor = await stack.vendor({ fundCents: 1_000_000n, feePerPayoutCents: 500n, name: 'Settlement payout vendor' });
    ingestor = stack.worker.get(SettlementIngestor);
  });
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  const sandbox = (path: string, body: unknown = {}) =>
    fetch(`${stack.sandboxUrl}/__sandbox/settlement/${path}`, { method: 'POST', headers: { 'x-api-key': PAYOUT_SANDBOX_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const pay = async (body: Record<string, unknown>) => (await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(body).expect(200)).body.data;
  const row = async (merchantReference: string) =>
    (await stack.dataSource.query(`SELECT id, status, next_poll_at, provider_reference FROM payouts WHERE merchant_reference = $1`, [merchantReference]))[0];
  const entries = async (payoutId: string) =>
    (await stack.dataSource.query(`SELECT kind, amount_cents::text AS amount, available_delta_cents::text AS available FROM ledger_entries WHERE payout_id = $1 ORDER BY id`, [payoutId])) as {
      kind: string;
      amount: string;
      available: string;
    }[];
  const available = async () => (await stack.dataSource.query(`SELECT available_cents::text AS available FROM payout_accounts WHERE vendor_id = $1`, [vendor.vendor.id]))[0].available as string;
  const exceptionsOf = async (dedupeKey: string) => stack.dataSource.query(`SELECT id, kind, status, details FROM reconciliation_exceptions WHERE dedupe_key = $1`, [dedupeKey]);
  const nothingNew = (summary: IngestSummary) => expect(summary).toMatchObject({ new_lines: 0, results: { matched: 0, applied: 0, exception: 0 }, missing_lines_raised: 0 });

  it('a cash-send reversed after the watch is found by the settlement report and its amount + fee return once', async () => {
    const before = await available();
    const payout = await pay(cashPayout('55'));
    expect(payout.status).toBe('paid');
    // The watch is over (the sandbox's paid_at is long past): nothing polls this payout any more.
    const paid = await eventually(async () => {
      const current = await row(payout.merchant_reference);
      expect(current).toMatchObject({ status: 'paid', next_poll_at: null });
      return current;
    });
    expect(BigInt(await available())).toBe(BigInt(before) - 20_500n);

    const paidReport = await ingestor.ingest('bank_a_instant_money', PAID_DAY);
    expect(paidReport).toMatchObject({ day_complete: true, results: { applied: 0, exception: 0 } });
    expect(paidReport.results.matched).toBeGreaterThanOrEqual(1);

    // Three days later the cash was never collected: the bank reverses it and calls nobody.
    clock.advance(3 * DAY_MS);
    expect((await sandbox(`bank_a_instant_money/reverse/${payout.merchant_reference}`)).status).toBe(200);
    const reversalDay = '2026-03-13';
    expect((await row(payout.merchant_reference)).status).toBe('paid');

    const reversalReport = await ingestor.ingest('bank_a_instant_money', reversalDay);
    expect(reversalReport).toMatchObject({ lines: 1, new_lines: 1, results: { matched: 0, applied: 1, exception: 0 }, missing_lines_raised: 0 });
    expect(await row(payout.merchant_reference)).toMatchObject({ status: 'reversed' });
    expect(await entries(paid.id)).toEqual([
      { kind: 'reserve', amount: '20500', available: '-20500' },
      { kind: 'settle', amount: '20500', available: '0' },
      { kind: 'reverse', amount: '20500', available: '20500' },
    ]);
    expect(await available()).toBe(before);
    const [line] = await stack.dataSource.query(`SELECT match_result, payout_id, status FROM settlement_lines WHERE payout_id = $1 AND status = 'reversed'`, [paid.id]);
    expect(line).toEqual({ match_result: 'applied', payout_id: paid.id, status: 'reversed' });

    // Ingesting both days again moves nothing and raises nothing.
    nothingNew(await ingestor.ingest('bank_a_instant_money', reversalDay));
    nothingNew(await ingestor.ingest('bank_a_instant_money', PAID_DAY));
    expect((await entries(paid.id)).map((entry) => entry.kind)).toEqual(['reserve', 'settle', 'reverse']);
    expect(await available()).toBe(before);
    expect(await stack.submissions(payout.merchant_reference)).toEqual({ count: 1, duplicate_attempts: 0 });
    const vendorView = await stack.gateway.http().get(`/api/v1/payouts/${encodeURIComponent(payout.reference)}`).set(bearer(vendor.token)).expect(200);
    expect(vendorView.body.data).toMatchObject({ status: 'reversed', status_reason: 'reversed_by_provider' });
  });

  it('a payout still pending at our side that the report shows paid is settled from the line, once', async () => {
    // 04: the provider answers PENDING and never says more to a status poll.
    const payout = await pay(rtcPayout('04'));
    const pending = await eventually(async () => {
      const current = await row(payout.merchant_reference);
      expect(current.provider_reference).toEqual(expect.any(String));
      return current;
    });
    // Pending, or already needs_review (the stack's review window is short): either way open, funds reserved.
    expect(['pending', 'needs_review']).toContain(pending.status);
    const day = '2026-03-13';
    expect(
      (
        await sandbox(`rtc_eft/extra-lines/${day}`, {
          provider_reference: pending.provider_reference,
          merchant_reference: payout.merchant_reference,
          amount: payout.amount,
          status: 'PAID',
          settled_at: clock.now().toISOString(),
        })
      ).status,
    ).toBe(200);
    const summary = await ingestor.ingest('rtc_eft', day);
    expect(summary.results).toEqual({ matched: 0, applied: 1, exception: 0 });
    expect((await row(payout.merchant_reference)).status).toBe('paid');
    expect((await entries(pending.id)).map((entry) => entry.kind)).toEqual(['reserve', 'settle']);
    nothingNew(await ingestor.ingest('rtc_eft', day));
    expect((await entries(pending.id)).map((entry) => entry.kind)).toEqual(['reserve', 'settle']);
  });

  it('an amount that differs, a line for a payment we never sent and a paid payout missing from the report each raise one exception, moving nothing', async () => {
    const differing = await pay(cashPayout('55', { method: 'bank_b_cardless' }));
    const missing = await pay(cashPayout('55', { method: 'bank_b_cardless' }));
    const differingRow = await row(differing.merchant_reference);
    const missingRow = await row(missing.merchant_reference);
    const entriesBefore = [await entries(differingRow.id), await entries(missingRow.id)];
    const day = '2026-03-13';
    await sandbox(`bank_b_cardless/lines/${differing.merchant_reference}`, { amount: '210.00' });
    await sandbox(`bank_b_cardless/lines/${missing.merchant_reference}`, { omit: true });
    await sandbox(`bank_b_cardless/extra-lines/${day}`, {
      provider_reference: 'bank-b-never-ours-1',
      merchant_reference: 'GW_PO_0000000000000000000000000000DEAD',
      amount: '500.00',
      status: 'PAID',
      settled_at: `${day}T09:00:00.000Z`,
    });

    const first = await ingestor.ingest('bank_b_cardless', day);
    expect(first).toMatchObject({ lines: 2, results: { matched: 0, applied: 0, exception: 2 }, missing_lines_raised: 1 });
    // Each line's exception is keyed by the line (its own observation).
    const lineKey = async (merchantReference: string, kind: string) => {
      const [line] = await stack.dataSource.query(`SELECT id::text AS id FROM settlement_lines WHERE merchant_reference = $1 ORDER BY id LIMIT 1`, [merchantReference]);
      return `settlement_line:${line.id}:${kind}`;
    };
    const mismatch = await exceptionsOf(await lineKey(differing.merchant_reference, 'amount_mismatch'));
    expect(mismatch).toEqual([expect.objectContaining({ kind: 'amount_mismatch', status: 'open', details: expect.objectContaining({ provider_amount: '210.00', our_amount: '200.00' }) })]);
    expect(await exceptionsOf(await lineKey('GW_PO_0000000000000000000000000000DEAD', 'unknown_line'))).toEqual([expect.objectContaining({ kind: 'unknown_line' })]);
    expect(await exceptionsOf(`payout:${missingRow.id}:missing_line:${day}`)).toEqual([expect.objectContaining({ kind: 'missing_line' })]);
    expect((await row(differing.merchant_reference)).status).toBe('paid');
    expect([await entries(differingRow.id), await entries(missingRow.id)]).toEqual(entriesBefore);

    nothingNew(await ingestor.ingest('bank_b_cardless', day));
    const [{ count }] = await stack.dataSource.query(`SELECT count(*)::int AS count FROM reconciliation_exceptions WHERE report_date = $1 AND provider = 'bank_b_cardless'`, [day]);
    expect(count).toBe(3);
  });

  it('shows lines by result and open exceptions on the worker /metrics', async () => {
    const metrics = (await request(stack.worker.getHttpServer()).get('/metrics').expect(200)).text;
    const value = (pattern: RegExp) => Number(pattern.exec(metrics)?.[1] ?? 'NaN');
    expect(value(/^settlement_lines_total\{provider="bank_a_instant_money",result="applied"\} (\d+)/m)).toBeGreaterThanOrEqual(1);
    expect(value(/^reconciliation_exceptions_open\{domain="payout",kind="amount_mismatch"\} (\d+)/m)).toBeGreaterThanOrEqual(1);
    expect(value(/^reconciliation_exceptions_open\{domain="payout",kind="missing_line"\} (\d+)/m)).toBeGreaterThanOrEqual(1);
    expect(value(/^reconciliation_exception_oldest_open_age_seconds\{domain="payout"\} (\d+)/m)).toBeGreaterThanOrEqual(0);
  });

  describe('ops CLI', () => {
    let env: NodeJS.ProcessEnv;
    const ops = async (...args: string[]) => {
      try {
        const { stdout } = await run('node', [CLI, ...args], { env, timeout: 90_000 });
        return { json: JSON.parse(stdout) as Record<string, any>, code: 0, stderr: '' }; // eslint-disable-line @typescript-eslint/no-explicit-any
      } catch (error) {
        const failure = error as { code: number; stderr: string };
        return { json: {}, code: failure.code, stderr: failure.stderr };
      }
    };

    beforeAll(() => {
      if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
      env = {
        PATH: process.env.PATH,
        APP_ENV: 'test',
        DATABASE_URL: process.env.E2E_DATABASE_URL,
        REDIS_URL: process.env.E2E_REDIS_URL,
        PAYOUT_PROVIDER_BASE_URL: stack.sandboxUrl,
        PAYOUT_PROVIDER_API_KEY: PAYOUT_SANDBOX_KEY,
      };
    });

    it('reconcile:run is idempotent, reconcile:report tells the day, reconcile:resolve closes an exception', async () => {
      const rerun = await ops('reconcile:run', '--date', '2026-03-13', '--provider', 'bank_b_cardless');
      expect(rerun.code).toBe(0);
      expect(rerun.json.providers).toEqual([expect.objectContaining({ provider: 'bank_b_cardless', new_lines: 0, results: { matched: 0, applied: 0, exception: 0 } })]);

      const report = await ops('reconcile:report', '--date', '2026-03-13');
      expect(report.code).toBe(0);
      const byProvider = Object.fromEntries((report.json.reports as { provider: string; lines: unknown }[]).map((entry) => [entry.provider, entry.lines]));
      expect(byProvider.bank_a_instant_money).toEqual({ matched: 0, applied: 1, exception: 0, unprocessed: 0 });
      expect(byProvider.bank_b_cardless).toEqual({ matched: 0, applied: 0, exception: 2, unprocessed: 0 });
      expect(report.json.exceptions_by_kind).toEqual({ amount_mismatch: 1, unknown_line: 1, missing_line: 1 });
      // Every provider-day of the date that an ingestion (or the schedule) recorded, with its state.
      const days = Object.fromEntries((report.json.days as { provider: string; status: string }[]).map((day) => [day.provider, day.status]));
      expect(days).toMatchObject({ bank_a_instant_money: 'fetched', bank_b_cardless: 'fetched' });
      const mismatch = (report.json.open_exceptions.items as { id: string; kind: string; report_date: string }[]).find((item) => item.kind === 'amount_mismatch' && item.report_date === '2026-03-13')!;
      expect(mismatch).toBeDefined();

      // The resolver is a staff account proven by its authenticator code (test/back-office/exceptions.e2e-spec.ts covers the rest).
      const backOffice = await startBackOffice();
      try {
        const staff = await createStaffUser(backOffice.app, 'operator');
        const resolve = async (note: string) =>
          ops('reconcile:resolve', '--id', mismatch.id, '--resolution', 'no_money_moves', '--note', note, '--proposer', staff.email, '--code', await nextCode(staff));
        const resolved = await resolve('provider ticket 4411: their file was wrong');
        expect(resolved.json).toMatchObject({ id: mismatch.id, status: 'resolved', resolution_kind: 'no_money_moves', resolved_by: staff.email });
        const again = await resolve('provider ticket 4411, twice');
        expect(again.code).not.toBe(0);
        expect(again.stderr).toContain('already resolved');
      } finally {
        await backOffice.close();
      }

      const badDate = await ops('reconcile:report', '--date', '2026-02-30');
      expect(badDate.code).not.toBe(0);
      expect(badDate.stderr).toContain('--date must be a calendar day');
      const badProvider = await ops('reconcile:run', '--date', '2026-03-13', '--provider', 'bank_z');
      expect(badProvider.code).not.toBe(0);
      expect(badProvider.stderr).toContain('--provider must be one of');
      // Two authenticator codes: the second waits for the next 30-second step.
    }, 120_000);
  });

  it('leaves every settlement line of its records matched, applied or with an exception (invariant checker)', async () => {
    const report = await checkInvariants((sql, parameters) => stack.dataSource.query(sql, parameters), { vendorIds: [vendor.vendor.id] });
    expect(report.examined.settlementLines).toBeGreaterThanOrEqual(4);
    expect(report.violations.filter((violation) => violation.invariant === 'settlementLines')).toEqual([]);
  });
});
