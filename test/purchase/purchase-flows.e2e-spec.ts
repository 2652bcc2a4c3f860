import { johannesburgDayOf } from '#common';
import { bearer, CALLBACK_TOKEN, eventually, PRODUCTS, type PurchaseStack, usePurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase, readTransaction, settle, usedAllowance } from './purchase-helpers.js';

describe('purchases end to end: gateway, worker and provider sandbox', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  usePurchaseStack((suite) => ({ stack, vendor } = suite));

  const get = (path: string, token = vendor.token) => stack.gateway.http().get(`/api/v1${path}`).set(bearer(token));

  describe('typical flow', () => {
    it('buys a fixed product: 202 pending, one provider create, then completed by a verified lookup', async () => {
      const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234500') });
      expect(bought.transaction).toEqual({
        id: expect.any(String),
        reference: bought.reference,
        status: 'pending',
        product_id: PRODUCTS.fixedAirtime,
        quote_id: bought.quote.id,
        charge_minor: bought.quote.charge_minor,
        currency: 'ZAR',
        destination_amount: '10.00',
        destination_unit: 'ZAR',
        error_code: null,
        fulfilment_available: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        completed_at: null,
        reversed_at: null,
      });
      const done = await settle(stack, vendor, bought.transaction.id, ['completed']);
      expect(done.completed_at).not.toBeNull();
      expect(done.fulfilment_available).toBe(false);
      expect(await stack.sandbox.creates(bought.transaction.id)).toBe(1);
      const [row] = await stack.db.query(`SELECT provider_transaction_id, submission_outcome FROM purchase_transactions WHERE id = $1`, [bought.transaction.id]);
      expect(row.provider_transaction_id).not.toBeNull();
      expect(row.submission_outcome).toBe('accepted');
      // Completed without delivery data (airtime): nothing to hand out (issue 25: 409, not 404).
      expect((await get(`/transactions/${bought.transaction.id}/fulfilment`).expect(409)).body.error.code).toBe('FULFILMENT_UNAVAILABLE');
    });

    it('buys a ranged product for an exact amount', async () => {
      const bought = await purchase(stack, vendor, { product_id: PRODUCTS.rangedAirtime, destination_amount: '37.00', ...mobile('27821234510') });
      const done = await settle(stack, vendor, bought.transaction.id, ['completed']);
      expect(done).toMatchObject({ destination_amount: '37.00', charge_minor: bought.quote.charge_minor });
      const provider = await fetch(`${stack.sandbox.url}/dvs/v1/transactions?external_id=${bought.transaction.id}`, { headers: { 'x-api-key': 'sandbox-key' } });
      const [atProvider] = (await provider.json()) as Array<{ destination: { amount: string } }>;
      expect(atProvider.destination.amount).toBe('37.00');
    });

    it('buys a PIN product and delivers the PIN only through the audited, no-store fulfilment endpoint', async () => {
      const bought = await purchase(stack, vendor, { product_id: PRODUCTS.pin, ...mobile('27821234520') });
      const done = await settle(stack, vendor, bought.transaction.id, ['completed']);
      expect(done.fulfilment_available).toBe(true);
      expect(JSON.stringify(done)).not.toMatch(/pin|serial/i);

      const reader = await vendor.issue(['fulfilment:read']);
      const response = await get(`/transactions/${bought.transaction.id}/fulfilment`, reader.token).expect(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const fulfilment = response.body.data;
      expect(fulfilment).toEqual({
        transaction_id: bought.transaction.id,
        kind: 'pin',
        pin: { code: expect.stringMatching(/^\d{16}$/), serial: expect.stringMatching(/^SN\d{12}$/) },
        esim: null,
      });
      // The provider's own record agrees, and our copy at rest is ciphertext only.
      const provider = await fetch(`${stack.sandbox.url}/dvs/v1/transactions?external_id=${bought.transaction.id}`, { headers: { 'x-api-key': 'sandbox-key' } });
      const [atProvider] = (await provider.json()) as Array<{ pin: { code: string } }>;
      expect(atProvider.pin.code).toBe(fulfilment.pin.code);
      const [stored] = await stack.db.query(`SELECT key_id, sealed FROM purchase_fulfilments WHERE transaction_id = $1`, [bought.transaction.id]);
      expect(stored.key_id).toBe('dev1');
      expect(stored.sealed).not.toContain(fulfilment.pin.code);
      expect(stored.sealed).not.toContain(fulfilment.pin.serial);

      const audit = await stack.db.query(`SELECT vendor_id, token_id FROM purchase_fulfilment_reads WHERE transaction_id = $1`, [bought.transaction.id]);
      expect(audit).toEqual([{ vendor_id: vendor.vendor.id, token_id: reader.id }]);

      const withoutAbility = await vendor.issue(['transactions:read']);
      await get(`/transactions/${bought.transaction.id}/fulfilment`, withoutAbility.token).expect(403);
      const other = await stack.vendor({ name: 'Other vendor' });
      await get(`/transactions/${bought.transaction.id}/fulfilment`, other.token).expect(404);
      const auditAfter = await stack.db.query(`SELECT 1 FROM purchase_fulfilment_reads WHERE transaction_id = $1`, [bought.transaction.id]);
      expect(auditAfter).toHaveLength(1);
    });

    it('buys an eSIM and delivers its activation data', async () => {
      const bought = await purchase(stack, vendor, { product_id: PRODUCTS.esim, ...mobile('27821234530') });
      await settle(stack, vendor, bought.transaction.id, ['completed']);
      const response = await get(`/transactions/${bought.transaction.id}/fulfilment`).expect(200);
      expect(response.body.data).toMatchObject({
        kind: 'esim',
        pin: null,
        esim: { iccid: expect.stringMatching(/^8927\d{15}$/), smdp_address: expect.any(String), activation_code: expect.stringMatching(/^LPA:1\$/), qr_code_payload: expect.any(String) },
      });
    });
  });

  describe('sandbox test values end in the state the README sandbox table gives', () => {
    it('01 failed, 02 completed, 03 failed, 04 reversed, 05 review, 06 completed after GET agrees, 07 completed without callback', async () => {
      const allowanceBefore = await usedAllowance(stack, vendor.vendor.id);
      const suffixes = ['01', '02', '03', '04', '05', '06', '07'] as const;
      const bought = Object.fromEntries(
        await Promise.all(suffixes.map(async (suffix) => [suffix, await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile(`278212340${suffix}`) })])),
      ) as Record<(typeof suffixes)[number], Awaited<ReturnType<typeof purchase>>>;
      const charge = bought['01'].quote.charge_minor as number;
      const id = (suffix: (typeof suffixes)[number]) => bought[suffix].transaction.id as string;

      // 06: the callback says COMPLETED while the provider's GET still says SUBMITTED: the marker is stored, the status does not move.
      await eventually(
        () => stack.db.query(`SELECT provider_status_hint FROM purchase_callback_markers WHERE transaction_id = $1`, [id('06')]),
        (rows: unknown[]) => rows.length > 0,
      );
      expect((await readTransaction(stack, vendor, id('06'))).status).toBe('pending');

      const [failed01, done02, failed03, reversed04, review05, done06, done07] = await Promise.all([
        settle(stack, vendor, id('01'), ['failed', 'completed']),
        settle(stack, vendor, id('02'), ['completed', 'failed']),
        settle(stack, vendor, id('03'), ['failed', 'completed']),
        settle(stack, vendor, id('04'), ['reversed']),
        settle(stack, vendor, id('05'), ['review', 'failed', 'completed']),
        settle(stack, vendor, id('06'), ['completed']),
        settle(stack, vendor, id('07'), ['completed']),
      ]);
      expect(failed01).toMatchObject({ status: 'failed', error_code: 'PROVIDER_DECLINED' });
      expect(done02.status).toBe('completed');
      expect(failed03).toMatchObject({ status: 'failed', error_code: 'PROVIDER_NOT_CREATED' });
      expect(reversed04).toMatchObject({ status: 'reversed', completed_at: expect.any(String), reversed_at: expect.any(String) });
      expect(review05.status).toBe('review');
      expect(done06.status).toBe('completed');
      expect(done07.status).toBe('completed');

      // Never two creates for one transaction, whatever happened to the first.
      for (const suffix of suffixes) expect(await stack.sandbox.creates(id(suffix))).toBe(1);

      const outcomes = await stack.db.query(
        `SELECT id, submission_outcome, allowance_returned_at IS NOT NULL AS returned FROM purchase_transactions WHERE id = ANY($1::uuid[])`,
        [suffixes.map(id)],
      );
      const byId = new Map(outcomes.map((row: { id: string }) => [row.id, row]));
      expect(byId.get(id('02'))).toMatchObject({ submission_outcome: 'unknown', returned: false });
      expect(byId.get(id('03'))).toMatchObject({ submission_outcome: 'http_error', returned: true });
      expect(byId.get(id('01'))).toMatchObject({ returned: true });
      expect(byId.get(id('04'))).toMatchObject({ returned: false });

      // Allowance: 01 and 03 verifiably took no money and gave their charge back; the reversal of 04 did not.
      expect(await usedAllowance(stack, vendor.vendor.id)).toBe(allowanceBefore + 5 * charge);

      // 07 never produced a callback; 04 produced completion and reversal callbacks.
      const [{ markers07 }] = await stack.db.query(`SELECT count(*)::int AS markers07 FROM purchase_callback_markers WHERE transaction_id = $1`, [id('07')]);
      expect(markers07).toBe(0);
      const events04 = await stack.db.query(`SELECT from_status, to_status FROM purchase_transaction_events WHERE transaction_id = $1 ORDER BY id`, [id('04')]);
      expect(events04).toEqual([
        { from_status: null, to_status: 'pending' },
        { from_status: 'pending', to_status: 'completed' },
        { from_status: 'completed', to_status: 'reversed' },
      ]);
      const [row05] = await stack.db.query(`SELECT next_check_at, review_at FROM purchase_transactions WHERE id = $1`, [id('05')]);
      expect(row05.next_check_at).toBeNull();
      expect(row05.review_at).not.toBeNull();
    }, 60_000);
  });

  describe('provider callback', () => {
    const callback = (token: string, body: object) => stack.gateway.http().post(`/api/v1/provider/callback/${token}`).send(body);

    it('answers an invalid or missing token exactly like an unknown route and schedules nothing', async () => {
      const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821239905') });
      const outboxBefore = await stack.db.query(`SELECT count(*)::int AS n FROM outbox_messages WHERE job_name = 'purchase.verify'`);
      const body = { external_id: bought.transaction.id, status: 'COMPLETED' };
      const unknownRoute = await stack.gateway.http().post('/api/v1/provider/nothing-here').send(body).expect(404);
      for (const token of ['0'.repeat(64), CALLBACK_TOKEN.slice(0, 63), CALLBACK_TOKEN.toUpperCase(), `${CALLBACK_TOKEN}0`]) {
        const response = await callback(token, body).expect(404);
        expect(response.body).toEqual(unknownRoute.body);
      }
      await stack.gateway.http().post('/api/v1/provider/callback').send(body).expect(404);
      await stack.gateway.http().post('/api/v1/provider/callback/').send(body).expect(404);
      const markers = await stack.db.query(`SELECT 1 FROM purchase_callback_markers WHERE transaction_id = $1`, [bought.transaction.id]);
      expect(markers).toHaveLength(0);
      const outboxAfter = await stack.db.query(`SELECT count(*)::int AS n FROM outbox_messages WHERE job_name = 'purchase.verify'`);
      expect(outboxAfter[0].n).toBe(outboxBefore[0].n);
    });

    it('stores a durable marker per valid callback, verifies the burst from PostgreSQL without a queue job, and never changes a status itself', async () => {
      const bought = await purchase(stack, vendor, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821239805') });
      const id = bought.transaction.id;
      const responses = await Promise.all([1, 2, 3].map(() => callback(CALLBACK_TOKEN, { external_id: id, status: 'COMPLETED' })));
      responses.forEach((response) => expect(response.status).toBe(200));
      const markers = await stack.db.query(`SELECT id FROM purchase_callback_markers WHERE transaction_id = $1`, [id]);
      expect(markers).toHaveLength(3);
      // The markers are the work: the worker claims them (PurchaseCallbackClaimsService); no outbox row or job per callback.
      const jobs = await stack.db.query(`SELECT job_id FROM outbox_messages WHERE job_name = 'purchase.verify' AND payload->>'transactionId' = $1`, [id]);
      expect(jobs).toHaveLength(0);
      // The provider says SUBMITTED for ever (05): callbacks claiming completion change nothing. Wait
      // for the lookups they caused (every marker consumed) instead of a fixed time.
      await eventually(
        () => stack.db.query(`SELECT count(*)::int AS open FROM purchase_callback_markers WHERE transaction_id = $1 AND processed_at IS NULL`, [id]),
        (rows: Array<{ open: number }>) => rows[0].open === 0,
        20_000,
      );
      expect((await readTransaction(stack, vendor, id)).status).toBe('pending');
    });
  });

  describe('limits and reports', () => {
    it('reports allowance, settings and pause state on GET /limits', async () => {
      const fresh = await stack.vendor({ limits: { dailyCapMinor: 50_000, transactionMaxMinor: 20_000, velocityCount: 30, velocityWindowSeconds: 120 } });
      const before = await get('/limits', fresh.token).expect(200);
      expect(before.body.data).toMatchObject({
        configured: true,
        currency: 'ZAR',
        daily_cap_minor: 50_000,
        used_today_minor: 0,
        remaining_today_minor: 50_000,
        transaction_max_minor: 20_000,
        velocity_count: 30,
        velocity_window_seconds: 120,
        purchases_paused: false,
        paused_scope: null,
      });
      const bought = await purchase(stack, fresh, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234540') });
      const after = await get('/limits', fresh.token).expect(200);
      // Token rotation never resets the allowance: the day's usage belongs to the vendor.
      const rotated = await fresh.issue(['limits:read']);
      const afterRotation = await get('/limits', rotated.token).expect(200);
      const admittedOn = johannesburgDayOf(new Date(bought.transaction.created_at));
      if (johannesburgDayOf(new Date()) === admittedOn) {
        expect(after.body.data).toMatchObject({ used_today_minor: bought.quote.charge_minor, remaining_today_minor: 50_000 - bought.quote.charge_minor });
        expect(afterRotation.body.data.used_today_minor).toBe(bought.quote.charge_minor);
      } else {
        // The run crossed midnight in Johannesburg after the purchase: the new day starts empty
        // (the rollover itself is tested with a controlled clock in allowance-midnight).
        expect([0, bought.quote.charge_minor]).toContain(after.body.data.used_today_minor);
        expect([0, bought.quote.charge_minor]).toContain(afterRotation.body.data.used_today_minor);
      }
    });

    it('summarises sales by verified completion date and pending/review by admission date', async () => {
      const reporter = await stack.vendor({ name: 'Reporting vendor' });
      const completed = await purchase(stack, reporter, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234550') });
      const reversed = await purchase(stack, reporter, { product_id: PRODUCTS.pin, ...mobile('27821234504') });
      const failed = await purchase(stack, reporter, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234501') });
      await Promise.all([
        settle(stack, reporter, completed.transaction.id, ['completed']),
        settle(stack, reporter, reversed.transaction.id, ['reversed']),
        settle(stack, reporter, failed.transaction.id, ['failed']),
      ]);
      const pending = await purchase(stack, reporter, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234605') });

      // The period runs from the first admission's own Johannesburg day to the day after everything
      // settled, so a run across midnight still covers every admission and completion it made.
      const [{ first_day: from, last_day: to }] = await stack.db.query(
        `SELECT to_char(min(created_at) AT TIME ZONE 'Africa/Johannesburg', 'YYYY-MM-DD') AS first_day,
                to_char(now() AT TIME ZONE 'Africa/Johannesburg', 'YYYY-MM-DD') AS last_day
           FROM purchase_transactions WHERE vendor_id = $1`,
        [reporter.vendor.id],
      );
      const summary = await get(`/reports/summary?date_from=${from}&date_to=${to}`, reporter.token).expect(200);
      const gross = completed.quote.charge_minor + reversed.quote.charge_minor;
      expect(summary.body.data).toEqual({
        date_from: from,
        date_to: to,
        currency: 'ZAR',
        completed_count: 2,
        completed_gross_minor: gross,
        reversed_count: 1,
        reversed_gross_minor: reversed.quote.charge_minor,
        net_minor: completed.quote.charge_minor,
        pending_count: 1,
        review_count: 0,
      });
      const open = await get('/reports/summary', reporter.token).expect(200);
      expect(open.body.data).toMatchObject({ date_from: null, date_to: null, completed_count: 2 });
      const yesterday = await get('/reports/summary?date_to=2020-01-01', reporter.token).expect(200);
      expect(yesterday.body.data).toMatchObject({ completed_count: 0, pending_count: 0 });
      await get('/reports/summary?date_from=2026-02-30', reporter.token).expect(422);
      expect(pending.transaction.status).toBe('pending');
    }, 30_000);
  });
});
