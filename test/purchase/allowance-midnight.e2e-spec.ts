import { AdmissionClock, PurchaseSpendControlsService } from '#purchase';
import { startPurchaseGateway, type RunningApp } from '../support/apps.js';
import { bearer, CALLBACK_TOKEN, eventually, GENEROUS_LIMITS, PRODUCTS, SANDBOX_API_KEY, startPurchaseStack, type PurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile } from './purchase-helpers.js';

/**
 * The daily allowance belongs to the Africa/Johannesburg calendar day of the admission. A
 * gateway whose AdmissionClock is fixed by the test admits at 23:59:59.9 and 00:00:00 SAST (UTC+2,
 * no daylight saving) without waiting for midnight; the rest of the stack (worker, sandbox) is
 * the ordinary one. The instants are in the past, so fresh quotes are not yet expired at them.
 */
describe('daily allowance across midnight Johannesburg, with a controlled admission clock', () => {
  let stack: PurchaseStack;
  let gateway: RunningApp;
  let vendor: TestVendor;
  let instant = new Date();

  beforeAll(async () => {
    // No worker while the clock is fixed: these admissions date from the past, so a worker would
    // end them at once (verification window long over) and give their allowance back.
    stack = await startPurchaseStack({ worker: false });
    gateway = await startPurchaseGateway({
      config: { PURCHASE_PROVIDER_BASE_URL: stack.sandbox.url, PURCHASE_PROVIDER_API_KEY: SANDBOX_API_KEY, CALLBACK_TOKEN },
      overrides: [{ provide: AdmissionClock, useValue: { instant: () => instant } }],
    });
    vendor = await stack.vendor();
  });

  afterAll(async () => {
    await gateway?.close();
    await stack?.close();
  });

  const quote = async () => {
    const response = await gateway.http().post('/api/v1/quotes').set(bearer(vendor.token)).send({ product_id: PRODUCTS.fixedAirtime, ...mobile('27821237700') }).expect(201);
    return response.body.data as { id: string; charge_minor: number };
  };
  const buyAt = async (at: string, quoteId: string, key: string) => {
    instant = new Date(at);
    return gateway.http().post('/api/v1/transactions').set(bearer(vendor.token)).set('Idempotency-Key', key).send({ quote_id: quoteId, reference: key });
  };

  it('counts an admission at 23:59:59.9 against that day and one at 00:00:00 against the next', async () => {
    const first = await quote();
    // A cap of exactly one purchase per day: a second purchase on the same day is refused.
    await gateway.app.get(PurchaseSpendControlsService).setLimits(vendor.vendor.id, { ...GENEROUS_LIMITS, dailyCapMinor: first.charge_minor });

    const beforeMidnight = await buyAt('2026-03-14T23:59:59.900+02:00', first.id, 'night-1');
    expect(beforeMidnight.status).toBe(202);
    const second = await quote();
    const sameDay = await buyAt('2026-03-14T23:59:59.950+02:00', second.id, 'night-2');
    expect(sameDay.status).toBe(409);
    expect(sameDay.body.error).toEqual({ code: 'DAILY_CAP_EXCEEDED', remaining_minor: 0 });

    const atMidnight = await buyAt('2026-03-15T00:00:00.000+02:00', second.id, 'night-3');
    expect(atMidnight.status).toBe(202);
    const third = await quote();
    const nextDaySecond = await buyAt('2026-03-15T00:00:00.500+02:00', third.id, 'night-4');
    expect(nextDaySecond.body.error.code).toBe('DAILY_CAP_EXCEEDED');

    // Each admission carries its instant and its Johannesburg day; each day's allowance holds one charge.
    const rows = await stack.db.query(
      `SELECT id, created_at, to_char(admission_day, 'YYYY-MM-DD') AS day FROM purchase_transactions WHERE vendor_id = $1 ORDER BY created_at`,
      [vendor.vendor.id],
    );
    expect(rows).toEqual([
      { id: beforeMidnight.body.data.id, created_at: new Date('2026-03-14T21:59:59.900Z'), day: '2026-03-14' },
      { id: atMidnight.body.data.id, created_at: new Date('2026-03-14T22:00:00.000Z'), day: '2026-03-15' },
    ]);
    const allowances = await stack.db.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, used_cents::int AS used FROM purchase_daily_allowances WHERE vendor_id = $1 ORDER BY day`,
      [vendor.vendor.id],
    );
    expect(allowances).toEqual([
      { day: '2026-03-14', used: first.charge_minor },
      { day: '2026-03-15', used: second.charge_minor },
    ]);
    // The vendor-facing day filter agrees.
    const listed = await gateway.http().get('/api/v1/transactions?date_from=2026-03-15&date_to=2026-03-15').set(bearer(vendor.token)).expect(200);
    expect(listed.body.data.items.map((item: { id: string }) => item.id)).toEqual([atMidnight.body.data.id]);

    // Leave no pending work for later suites: this stack's worker ends both purchases.
    await stack.startWorker();
    await eventually(
      () => stack.db.query(`SELECT count(*)::int AS open FROM purchase_transactions WHERE vendor_id = $1 AND status = 'pending'`, [vendor.vendor.id]),
      (rows: Array<{ open: number }>) => rows[0].open === 0,
      30_000,
    );
  }, 60_000);
});
