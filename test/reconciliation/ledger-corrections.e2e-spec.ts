import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { checkInvariants } from '#invariants';
import { ReconciliationExceptionsService } from '#reconciliation';
import { SettlementIngestor } from '#settlement';
import { ManualSandboxClock } from '../../apps/provider-sandbox/src/sandbox-clock.js';
import { cashPayout, rtcPayout, uniqueReference } from '../payout/payout-requests.js';
import { eventually, PAYOUT_SANDBOX_KEY, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { bearer } from '../support/vendors.js';

const run = promisify(execFile);
const CLI = 'dist/apps/ops/src/main.js';
const DAY_MS = 24 * 60 * 60 * 1000;
/** The sandbox's clock sits on a finished Johannesburg day of its own, so only this file's payouts are on its reports. */
const PAID_DAY = '2026-05-12';

/**
 * Corrections after the fact (issue 26): the books follow the provider's proof through ledger
 * entries, never edits, and every disagreement a report shows raises its own exception. Checked
 * on the rows: payouts, ledger entries and their sums, settlement lines, exceptions.
 */
describe('ledger corrections from the provider’s proof', () => {
  let stack: PayoutStack;
  let clock: ManualSandboxClock;
  let ingestor: SettlementIngestor;

  beforeAll(async () => {
    clock = new ManualSandboxClock(new Date(`${PAID_DAY}T08:00:00.000Z`));
    stack = await startPayoutStack({ sandbox: { clock } });
    ingestor = stack.worker.get(SettlementIngestor);
  });
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  const control = (path: string, body: unknown = {}) =>
    fetch(`${stack.sandboxUrl}/__sandbox/settlement/${path}`, { method: 'POST', headers: { 'x-api-key': PAYOUT_SANDBOX_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const post = (vendor: PayoutTestVendor, body: Record<string, unknown>) => stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(body);
  const row = async (merchantReference: string) =>
    (await stack.dataSource.query(`SELECT id, status, status_reason, provider_reference FROM payouts WHERE merchant_reference = $1`, [merchantReference]))[0];
  const entries = async (payoutId: string) =>
    (await stack.dataSource.query(
      `SELECT kind, amount_cents::text AS amount, available_delta_cents::text AS available, reason IS NOT NULL AS has_reason, exception_id, approved_by
         FROM ledger_entries WHERE payout_id = $1 ORDER BY id`,
      [payoutId],
    )) as { kind: string; amount: string; available: string; has_reason: boolean; exception_id: string | null; approved_by: string | null }[];
  /** The account row, and the sums of its entries: they must agree. */
  const books = async (vendorId: string) => {
    const [account] = await stack.dataSource.query(
      `SELECT a.available_cents::text AS available, a.reserved_cents::text AS reserved,
              (SELECT COALESCE(SUM(available_delta_cents), 0)::text FROM ledger_entries e WHERE e.vendor_id = a.vendor_id) AS entries_available,
              (SELECT COALESCE(SUM(reserved_delta_cents), 0)::text FROM ledger_entries e WHERE e.vendor_id = a.vendor_id) AS entries_reserved
         FROM payout_accounts a WHERE a.vendor_id = $1`,
      [vendorId],
    );
    expect(account.entries_available).toBe(account.available);
    expect(account.entries_reserved).toBe(account.reserved);
    return { available: BigInt(account.available), reserved: BigInt(account.reserved) };
  };
  const exceptionsOfPayout = async (payoutId: string) =>
    (await stack.dataSource.query(`SELECT id, kind, status, dedupe_key, details FROM reconciliation_exceptions WHERE payout_id = $1 ORDER BY raised_at, id`, [payoutId])) as {
      id: string;
      kind: string;
      status: string;
      dedupe_key: string;
      details: Record<string, unknown>;
    }[];
  const linesOf = async (payoutId: string) =>
    (await stack.dataSource.query(
      `SELECT l.status, l.match_result, e.kind AS exception_kind, l.withdrawn_at IS NOT NULL AS withdrawn
         FROM settlement_lines l LEFT JOIN reconciliation_exceptions e ON e.id = l.exception_id WHERE l.payout_id = $1 ORDER BY l.id`,
      [payoutId],
    )) as { status: string; match_result: string; exception_kind: string | null; withdrawn: boolean }[];
  const invariantViolations = async (vendorId: string) =>
    (await checkInvariants((sql, parameters) => stack.dataSource.query(sql, parameters), { vendorIds: [vendorId] })).violations;
  const ops = async (...args: string[]) => {
    const env = {
      PATH: process.env.PATH,
      APP_ENV: 'test',
      DATABASE_URL: process.env.E2E_DATABASE_URL,
      REDIS_URL: process.env.E2E_REDIS_URL,
      PAYOUT_PROVIDER_BASE_URL: stack.sandboxUrl,
      PAYOUT_PROVIDER_API_KEY: PAYOUT_SANDBOX_KEY,
      // These fundings are below any four-eyes threshold: the CLI credits them at once.
      STAFF_FOUR_EYES_ABOVE_CENTS: '100000000',
    };
    const { stdout } = await run('node', [CLI, ...args], { env, timeout: 90_000 });
    return JSON.parse(stdout) as Record<string, unknown>;
  };

  describe('a payout released as never received that the provider then pays', () => {
    let vendor: PayoutTestVendor;
    let released: { id: string; merchant_reference: string };

    beforeAll(async () => {
      vendor = await stack.vendor({ fundCents: 30_000n, feePerPayoutCents: 500n, name: 'Paid after release vendor' });
    });

    it('is paid through the evidence path and debited again once, even ingested twice at once; the vendor is in debt and new payouts and batches are refused until funded', async () => {
      // 05: the provider records nothing; two "not found" lookups release amount + fee.
      const request = cashPayout('05');
      const created = (await post(vendor, request).expect(200)).body.data;
      released = await eventually(async () => {
        const current = await row(created.merchant_reference);
        expect(current).toMatchObject({ status: 'failed', status_reason: 'not_received_by_provider' });
        return { id: current.id as string, merchant_reference: created.merchant_reference as string };
      });
      expect(await books(vendor.vendor.id)).toEqual({ available: 30_000n, reserved: 0n });
      // The vendor, told it failed, pays the recipient again under a new reference.
      expect((await post(vendor, cashPayout('55')).expect(200)).body.data.status).toBe('paid');
      expect(await books(vendor.vendor.id)).toEqual({ available: 9_500n, reserved: 0n });

      // The provider had the payout after all and pays it: no callback, only its report says so.
      expect((await control(`bank_a_instant_money/pay-after-release/${released.merchant_reference}`, { amount: '200.00' })).status).toBe(200);
      const [first, second] = await Promise.all([ingestor.ingest('bank_a_instant_money', PAID_DAY), ingestor.ingest('bank_a_instant_money', PAID_DAY)]);
      expect(first.results.applied + second.results.applied).toBe(1);
      await ingestor.ingest('bank_a_instant_money', PAID_DAY);

      expect(await row(released.merchant_reference)).toMatchObject({ status: 'paid', status_reason: 'paid_after_release', provider_reference: expect.any(String) });
      const [exception] = await exceptionsOfPayout(released.id);
      expect(exception).toMatchObject({ kind: 'paid_after_release', status: 'open', details: expect.objectContaining({ released_as: 'not_received_by_provider', debited_again: '205.00' }) });
      expect(await entries(released.id)).toEqual([
        { kind: 'reserve', amount: '20500', available: '-20500', has_reason: false, exception_id: null, approved_by: null },
        { kind: 'release', amount: '20500', available: '20500', has_reason: false, exception_id: null, approved_by: null },
        { kind: 'resettle', amount: '20500', available: '-20500', has_reason: true, exception_id: exception.id, approved_by: null },
      ]);
      expect(await linesOf(released.id)).toEqual([{ status: 'settled', match_result: 'applied', exception_kind: null, withdrawn: false }]);
      // 300.00 - 205.00 (the second payout) - 205.00 (debited again) = -110.00: a debt, explained by the resettle entry.
      expect(await books(vendor.vendor.id)).toEqual({ available: -11_000n, reserved: 0n });
      const account = (await stack.gateway.http().get('/api/v1/account').set(bearer(vendor.token)).expect(200)).body.data;
      expect(account).toMatchObject({ available: '-110.00', reserved: '0.00', debt: '110.00' });
      expect(await invariantViolations(vendor.vendor.id)).toEqual([]);

      // New payouts and batches are refused, and nothing is reserved.
      const refused = await post(vendor, { ...cashPayout('55'), amount: '10.00' }).expect(409);
      expect(refused.body).toMatchObject({ success: false, code: 'ACCOUNT_IN_DEBT' });
      const batch = await stack.gateway.http().post('/api/v1/batches').set(bearer(vendor.token)).send({ reference: uniqueReference('debt-batch'), payouts: [{ ...cashPayout('55'), amount: '10.00' }] }).expect(409);
      expect(batch.body.code).toBe('ACCOUNT_IN_DEBT');
      expect(await books(vendor.vendor.id)).toEqual({ available: -11_000n, reserved: 0n });

      // Funding that leaves a debt still refuses; funding that covers it accepts payouts again.
      if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
      await ops('payout:fund', '--vendor', vendor.vendor.id, '--amount', '100.00', '--note', 'vendor repays part');
      expect((await post(vendor, { ...cashPayout('55'), amount: '10.00' }).expect(409)).body.code).toBe('ACCOUNT_IN_DEBT');
      await ops('payout:fund', '--vendor', vendor.vendor.id, '--amount', '300.00', '--note', 'vendor repays the rest');
      expect(await books(vendor.vendor.id)).toEqual({ available: 29_000n, reserved: 0n });
      expect((await post(vendor, cashPayout('55')).expect(200)).body.data.status).toBe('paid');
      expect(await books(vendor.vendor.id)).toEqual({ available: 8_500n, reserved: 0n });
      // Still one resettle entry for the payout, however often the report is read.
      await ingestor.ingest('bank_a_instant_money', PAID_DAY);
      expect((await entries(released.id)).map((entry) => entry.kind)).toEqual(['reserve', 'release', 'resettle']);
      expect(await invariantViolations(vendor.vendor.id)).toEqual([]);
    });

    it('a reversal after the exception was resolved raises a new exception and returns amount + fee once', async () => {
      const [first] = await exceptionsOfPayout(released.id);
      expect(await stack.worker.get(ReconciliationExceptionsService).resolve(first.id, 'ops.nomsa', 'vendor agreed to fund the debt')).toBe(true);
      const before = await books(vendor.vendor.id);

      // Three days later the cash was never collected: the bank reverses it and calls nobody.
      clock.advance(3 * DAY_MS);
      expect((await control(`bank_a_instant_money/reverse/${released.merchant_reference}`)).status).toBe(200);
      const reversalDay = '2026-05-15';
      const summary = await ingestor.ingest('bank_a_instant_money', reversalDay);
      expect(summary.results).toEqual({ matched: 0, applied: 1, exception: 0 });
      await ingestor.ingest('bank_a_instant_money', reversalDay);

      expect(await row(released.merchant_reference)).toMatchObject({ status: 'reversed', status_reason: 'reversed_by_provider' });
      expect((await entries(released.id)).map((entry) => entry.kind)).toEqual(['reserve', 'release', 'resettle', 'reverse']);
      expect(await books(vendor.vendor.id)).toEqual({ available: before.available + 20_500n, reserved: 0n });
      const exceptions = await exceptionsOfPayout(released.id);
      expect(exceptions.map(({ kind, status }) => ({ kind, status }))).toEqual([
        { kind: 'paid_after_release', status: 'resolved' },
        { kind: 'reversed_after_correction', status: 'open' },
      ]);
      expect(exceptions[1].details).toMatchObject({ returned: '205.00', provider_status: 'REVERSED' });
      expect(await invariantViolations(vendor.vendor.id)).toEqual([]);
    });
    it('the invariant checker catches the old behaviour: a released payout a line proves paid, and a line hidden by a resolved exception', async () => {
      // Each "old" state is written inside a transaction that is rolled back.
      const runner = stack.dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        const [first] = await exceptionsOfPayout(released.id);
        // Defect 1: the payout left failed (released) although its PAID line is on the report.
        await runner.query(`UPDATE payouts SET status = 'failed', status_reason = 'not_received_by_provider' WHERE id = $1`, [released.id]);
        // Defect 2: the reversal line marked as an exception pointing at the one resolved before it arrived.
        await runner.query(`UPDATE settlement_lines SET match_result = 'exception', exception_id = $2 WHERE payout_id = $1 AND status = 'reversed'`, [released.id, first.id]);
        const { violations } = await checkInvariants((sql, parameters) => runner.query(sql, parameters), { vendorIds: [vendor.vendor.id] });
        const names = violations.map((violation) => violation.invariant);
        expect(names).toContain('releasedPayoutNotProvedPaid');
        expect(names).toContain('settlementLineNotHidden');
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
      expect(await invariantViolations(vendor.vendor.id)).toEqual([]);
    });
  });

  describe('each disagreement of a report raises its own exception', () => {
    let vendor: PayoutTestVendor;

    beforeAll(async () => {
      vendor = await stack.vendor({ fundCents: 1_000_000n, feePerPayoutCents: 500n, name: 'Report disagreements vendor' });
    });

    it('a line reported twice for one payout raises duplicate_line and moves nothing twice', async () => {
      const payout = (await post(vendor, cashPayout('55', { method: 'bank_b_cardless' })).expect(200)).body.data;
      const paid = await row(payout.merchant_reference);
      const before = await books(vendor.vendor.id);
      expect((await control(`bank_b_cardless/lines/${payout.merchant_reference}`, { duplicate: true })).status).toBe(200);
      const day = clock.now().toISOString().slice(0, 10);

      await ingestor.ingest('bank_b_cardless', day);
      await ingestor.ingest('bank_b_cardless', day);
      expect(await linesOf(paid.id)).toEqual([
        { status: 'settled', match_result: 'matched', exception_kind: null, withdrawn: false },
        { status: 'settled', match_result: 'exception', exception_kind: 'duplicate_line', withdrawn: false },
      ]);
      const [duplicate] = await exceptionsOfPayout(paid.id);
      expect(duplicate).toMatchObject({ kind: 'duplicate_line', status: 'open', details: expect.objectContaining({ earlier_line: expect.objectContaining({ result: 'matched' }) }) });
      expect(await exceptionsOfPayout(paid.id)).toHaveLength(1);
      expect((await entries(paid.id)).map((entry) => entry.kind)).toEqual(['reserve', 'settle']);
      expect(await books(vendor.vendor.id)).toEqual(before);

      // The old behaviour (the second line matched as if it were the first), written inside a
      // transaction that is rolled back: the invariant checker catches it.
      const runner = stack.dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        await runner.query(`UPDATE settlement_lines SET match_result = 'matched', exception_id = NULL WHERE payout_id = $1 AND match_result = 'exception'`, [paid.id]);
        const { violations } = await checkInvariants((sql, parameters) => runner.query(sql, parameters), { vendorIds: [vendor.vendor.id] });
        expect(violations).toEqual([
          expect.objectContaining({ invariant: 'oneSettlingLinePerRecord', subject: paid.id, details: expect.objectContaining({ domain: 'payout', line_status: 'settled' }) }),
        ]);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
      expect(await invariantViolations(vendor.vendor.id)).toEqual([]);
    });

    it('a re-issued report that drops a line we applied raises line_withdrawn instead of overwriting silently', async () => {
      // 04: the provider answers PENDING for ever; only the report's line settles it.
      const payout = (await post(vendor, rtcPayout('04')).expect(200)).body.data;
      const pending = await eventually(async () => {
        const current = await row(payout.merchant_reference);
        expect(current.provider_reference).toEqual(expect.any(String));
        return current;
      });
      const day = clock.now().toISOString().slice(0, 10);
      const line = { provider_reference: pending.provider_reference, merchant_reference: payout.merchant_reference, amount: payout.amount, status: 'PAID', settled_at: clock.now().toISOString() };
      expect((await control(`rtc_eft/extra-lines/${day}`, line)).status).toBe(200);
      expect((await ingestor.ingest('rtc_eft', day)).results.applied).toBeGreaterThanOrEqual(1);
      expect(await linesOf(pending.id)).toEqual([{ status: 'settled', match_result: 'applied', exception_kind: null, withdrawn: false }]);
      const [{ checksum: before }] = await stack.dataSource.query(`SELECT checksum FROM settlement_reports WHERE provider = 'rtc_eft' AND report_date = $1`, [day]);

      // The provider re-issues the day without that line.
      expect((await control(`rtc_eft/reissue/${day}`, { drop: [payout.merchant_reference] })).status).toBe(200);
      const reissued = await ingestor.ingest('rtc_eft', day);
      expect(reissued.withdrawn_lines).toBe(1);
      expect(await ingestor.ingest('rtc_eft', day)).toMatchObject({ withdrawn_lines: 0, new_lines: 0 });

      expect(await linesOf(pending.id)).toEqual([{ status: 'settled', match_result: 'applied', exception_kind: null, withdrawn: true }]);
      const exceptions = await exceptionsOfPayout(pending.id);
      expect(exceptions).toEqual([
        expect.objectContaining({ kind: 'line_withdrawn', status: 'open', details: expect.objectContaining({ our_result: 'applied', previous_checksum: before }) }),
      ]);
      // The books are not rewritten by the report: staff decide.
      expect(await row(payout.merchant_reference)).toMatchObject({ status: 'paid' });
      expect((await entries(pending.id)).map((entry) => entry.kind)).toEqual(['reserve', 'settle']);
    });
  });

  describe('the invariant checker', () => {
    it('reports a negative balance no correction entry explains, and accepts one a resettle explains', async () => {
      const vendor = await stack.vendor({ fundCents: 10_000n, name: 'Unexplained debt vendor' });
      // The database refuses it: only correction debits may take `available` below zero.
      await expect(stack.dataSource.query(`UPDATE payout_accounts SET available_cents = -500 WHERE vendor_id = $1`, [vendor.vendor.id])).rejects.toThrow(/balances_non_negative/);
      // With the CHECK dropped (inside a transaction rolled back), a hand edit is caught by the checker.
      const runner = stack.dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        await runner.query(`ALTER TABLE payout_accounts DROP CONSTRAINT payout_accounts_balances_non_negative`);
        await runner.query(`UPDATE payout_accounts SET available_cents = -500 WHERE vendor_id = $1`, [vendor.vendor.id]);
        const { violations } = await checkInvariants((sql, parameters) => runner.query(sql, parameters), { vendorIds: [vendor.vendor.id] });
        expect(violations).toEqual(
          expect.arrayContaining([expect.objectContaining({ invariant: 'nonNegativeBalances', subject: vendor.vendor.id, details: expect.objectContaining({ correction_debits_cents: '0' }) })]),
        );
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
      expect(await invariantViolations(vendor.vendor.id)).toEqual([]);
    });
  });
});
