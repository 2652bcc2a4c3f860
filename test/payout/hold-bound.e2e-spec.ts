import { MetricsService } from '#observability';
import { checkInvariants, type InvariantReport } from '#invariants';
import { PayoutHoldWatchService } from '#payout';
import { ReconciliationExceptionsService } from '#reconciliation';
import { bearer } from '../support/vendors.js';
import { eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { cashPayout } from './payout-requests.js';

/** The bound of this suite: 10 minutes (the stack sends payouts to needs_review after 1.5 s). */
const BOUND_MS = 600_000;

/**
 * Issue 26, "needs_review is bounded": a payout holding its vendor's funds longer than
 * PAYOUT_HOLD_MAX_AGE_MS gets exactly one `hold_overdue` exception however often the worker's
 * sweep runs, the hold-age metrics report it, and the invariant checker names such a hold while
 * no staff item owns it and is satisfied once one does. The hold is aged by moving its creation
 * back past the bound (the provider sandbox's 04 keeps it in needs_review).
 */
describe('payout holds are bounded', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;

  beforeAll(async () => {
    // The test runs the sweep's hold check itself: the worker's own tick (and the review polls) stay out of its way.
    stack = await startPayoutStack({ config: { PAYOUT_HOLD_MAX_AGE_MS: String(BOUND_MS), PAYOUT_REVIEW_POLL_INTERVAL_MS: '3600000', PAYOUT_SWEEP_INTERVAL_MS: '3600000' } });
    vendor = await stack.vendor({ fundCents: 1_000_000n, feePerPayoutCents: 100n });
  });
  afterAll(async () => stack?.close());

  const invariants = (): Promise<InvariantReport> =>
    checkInvariants((sql, parameters) => stack.dataSource.query(sql, parameters), { vendorIds: [vendor.vendor.id], payoutHoldMaxAgeMs: BOUND_MS });
  const boundViolations = async () => (await invariants()).violations.filter((violation) => violation.invariant === 'payoutHoldsBounded').map((violation) => violation.subject);
  const exceptionsOf = async (payoutId: string) =>
    (await stack.dataSource.query(`SELECT kind, dedupe_key, status, details FROM reconciliation_exceptions WHERE payout_id = $1 ORDER BY raised_at, id`, [payoutId])) as Array<{
      kind: string;
      dedupe_key: string;
      status: string;
      details: Record<string, unknown>;
    }>;
  const metric = async (name: string) => {
    const text = await stack.worker.get(MetricsService).registry.getSingleMetricAsString(name);
    return Number(/\n[a-z_]+(?:\{[^}]*\})? ([0-9.e+-]+)/.exec(text)?.[1] ?? NaN);
  };

  it('raises one hold_overdue exception for a needs_review payout past the bound, reports it in the metrics, and the invariant checker needs a staff item', async () => {
    const request = cashPayout('04');
    const created = (await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(request).expect(200)).body.data as { id: string };
    await eventually(async () => expect((await stack.dataSource.query(`SELECT status FROM payouts WHERE id = $1`, [created.id]))[0].status).toBe('needs_review'), 20_000, 100);
    const watch = stack.worker.get(PayoutHoldWatchService);

    // Within the bound: nothing raised, nothing to report.
    await watch.raiseOverdue();
    expect(await exceptionsOf(created.id)).toEqual([]);
    expect(await boundViolations()).toEqual([]);

    // Past the bound, before the sweep: the checker names the hold nobody owns.
    await stack.dataSource.query(`UPDATE payouts SET created_at = now() - make_interval(secs => $2::float8 / 1000 + 60) WHERE id = $1`, [created.id, BOUND_MS]);
    expect(await boundViolations()).toEqual([created.id]);
    expect(await metric('payout_holds_overdue')).toBeGreaterThanOrEqual(1);
    expect(await metric('payout_hold_oldest_age_seconds')).toBeGreaterThan(BOUND_MS / 1000);
    const raisedBefore = await metric('payout_hold_overdue_exceptions_total');

    // The sweep raises it once, however many ticks (and racing replicas) run.
    await Promise.all([watch.raiseOverdue(), watch.raiseOverdue()]);
    await watch.raiseOverdue();
    const raised = await exceptionsOf(created.id);
    expect(raised).toEqual([
      {
        kind: 'hold_overdue',
        dedupe_key: `payout:${created.id}:hold_overdue:1`,
        status: 'open',
        details: expect.objectContaining({ status: 'needs_review', amount_cents: '20000', fee_cents: '100', bound_ms: BOUND_MS }),
      },
    ]);
    expect(await metric('payout_hold_overdue_exceptions_total')).toBe(raisedBefore + 1);
    // Owned now: the checker is satisfied.
    expect(await boundViolations()).toEqual([]);

    // Staff resolve the exception but the hold stays: reported again, until the next sweep raises a new one (once).
    const [{ id }] = await stack.dataSource.query(`SELECT id FROM reconciliation_exceptions WHERE payout_id = $1`, [created.id]);
    expect(await stack.gateway.app.get(ReconciliationExceptionsService).resolve(id, 'staff@example.test', 'Chased the provider, still waiting')).toBe(true);
    expect(await boundViolations()).toEqual([created.id]);
    await watch.raiseOverdue();
    await watch.raiseOverdue();
    expect((await exceptionsOf(created.id)).map((row) => `${row.dedupe_key} ${row.status}`)).toEqual([
      `payout:${created.id}:hold_overdue:1 resolved`,
      `payout:${created.id}:hold_overdue:2 open`,
    ]);
    expect(await boundViolations()).toEqual([]);

    // The hold is released only by its outcome; put the payout back in the bound so the suite's books stay clean.
    await stack.dataSource.query(`UPDATE payouts SET created_at = now() WHERE id = $1`, [created.id]);
  });
});

/** The same through the worker's own sweep loop: raised by the tick, and still once after many ticks. */
describe('payout holds are bounded: the worker sweep', () => {
  let stack: PayoutStack;

  beforeAll(async () => {
    stack = await startPayoutStack({ config: { PAYOUT_HOLD_MAX_AGE_MS: String(BOUND_MS), PAYOUT_REVIEW_POLL_INTERVAL_MS: '3600000', PAYOUT_SWEEP_INTERVAL_MS: '300' } });
  });
  afterAll(async () => stack?.close());

  it('raises hold_overdue on a tick, once however many ticks follow', async () => {
    const vendor = await stack.vendor({ fundCents: 1_000_000n });
    const created = (await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout('04')).expect(200)).body.data as { id: string };
    await eventually(async () => expect((await stack.dataSource.query(`SELECT status FROM payouts WHERE id = $1`, [created.id]))[0].status).toBe('needs_review'), 20_000, 100);
    await stack.dataSource.query(`UPDATE payouts SET created_at = now() - make_interval(secs => $2::float8 / 1000 + 60) WHERE id = $1`, [created.id, BOUND_MS]);
    const count = async () => Number((await stack.dataSource.query(`SELECT count(*)::int AS n FROM reconciliation_exceptions WHERE payout_id = $1 AND kind = 'hold_overdue'`, [created.id]))[0].n);
    await eventually(async () => expect(await count()).toBe(1), 20_000, 100);
    // Ten more ticks.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await count()).toBe(1);
    await stack.dataSource.query(`UPDATE payouts SET created_at = now() WHERE id = $1`, [created.id]);
  });
});
