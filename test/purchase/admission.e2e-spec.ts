import { randomUUID } from 'node:crypto';
import { PurchaseSpendControlsService } from '#purchase';
import { bearer, eventually, PRODUCTS, type PurchaseStack, usePurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase, settle, usedAllowance } from './purchase-helpers.js';

describe('POST /transactions: idempotency, quotes, spend controls and tenancy', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  usePurchaseStack((suite) => ({ stack, vendor } = suite));

  const quote = async (who: TestVendor = vendor, number = '27821230000') => {
    const response = await stack.gateway.http().post('/api/v1/quotes').set(bearer(who.token)).send({ product_id: PRODUCTS.fixedAirtime, ...mobile(number) });
    expect(response.status).toBe(201);
    return response.body.data as { id: string; charge_minor: number };
  };
  const buy = (body: object, key: string | null, who: TestVendor = vendor) => {
    const request = stack.gateway.http().post('/api/v1/transactions').set(bearer(who.token));
    if (key !== null) request.set('Idempotency-Key', key);
    return request.send(body);
  };
  const rowsFor = (vendorId: string) => stack.db.query(`SELECT id, reference, quote_id FROM purchase_transactions WHERE vendor_id = $1`, [vendorId]);

  describe('idempotency', () => {
    it('replays an exact request with the original transaction in its current state, even after completion, quote expiry and a pause', async () => {
      const fresh = await stack.vendor();
      const { id: quoteId } = await quote(fresh);
      const body = { quote_id: quoteId, reference: 'order-1' };
      const first = await buy(body, 'key-1', fresh).expect(202);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      await settle(stack, fresh, first.body.data.id, ['completed']);

      await stack.db.query(`UPDATE purchase_quotes SET expires_at = now() - interval '1 minute' WHERE id = $1`, [quoteId]);
      const spend = stack.gateway.app.get(PurchaseSpendControlsService);
      await spend.pause(null);
      await spend.pause(fresh.vendor.id);
      try {
        const replay = await buy(body, 'key-1', fresh).expect(202);
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(replay.body.data).toMatchObject({ id: first.body.data.id, status: 'completed', reference: 'order-1' });
      } finally {
        await spend.resume(null);
        await spend.resume(fresh.vendor.id);
      }
      expect(await rowsFor(fresh.vendor.id)).toHaveLength(1);
      expect(await stack.sandbox.creates(first.body.data.id)).toBe(1);
    });

    it('answers IDEMPOTENCY_CONFLICT when the key comes back with another quote or reference, or the reference under another key', async () => {
      const fresh = await stack.vendor();
      const { id: quoteId } = await quote(fresh);
      await buy({ quote_id: quoteId, reference: 'order-A' }, 'key-A', fresh).expect(202);
      const otherQuote = await quote(fresh);

      const differentReference = await buy({ quote_id: quoteId, reference: 'order-B' }, 'key-A', fresh).expect(409);
      expect(differentReference.body).toEqual({ success: false, message: 'IDEMPOTENCY_CONFLICT', error: { code: 'IDEMPOTENCY_CONFLICT' } });
      const differentQuote = await buy({ quote_id: otherQuote.id, reference: 'order-A' }, 'key-A', fresh).expect(409);
      expect(differentQuote.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
      const reusedReference = await buy({ quote_id: otherQuote.id, reference: 'order-A' }, 'key-B', fresh).expect(409);
      expect(reusedReference.body.error.code).toBe('IDEMPOTENCY_CONFLICT');

      expect(await rowsFor(fresh.vendor.id)).toHaveLength(1);
      const keys = await stack.db.query(`SELECT idempotency_key FROM purchase_idempotency_keys WHERE vendor_id = $1`, [fresh.vendor.id]);
      expect(keys).toEqual([{ idempotency_key: 'key-A' }]);
    });

    it('lets the same key and reference be used by another vendor', async () => {
      const one = await stack.vendor();
      const two = await stack.vendor();
      const a = await buy({ quote_id: (await quote(one)).id, reference: 'shared' }, 'shared-key', one).expect(202);
      const b = await buy({ quote_id: (await quote(two)).id, reference: 'shared' }, 'shared-key', two).expect(202);
      expect(a.body.data.id).not.toBe(b.body.data.id);
    });

    it.each([
      ['a missing Idempotency-Key', null, {}, 'Idempotency-Key'],
      ['a key with a space', 'bad key', {}, 'Idempotency-Key'],
      ['a key of 129 characters', 'k'.repeat(129), {}, 'Idempotency-Key'],
      ['a reference of 129 characters', 'ok-key', { reference: 'r'.repeat(129) }, 'reference'],
      ['a reference with a slash', 'ok-key', { reference: 'a/b' }, 'reference'],
      ['a quote id that is not a UUID', 'ok-key', { quote_id: 'nope' }, 'quote_id'],
      ['an unknown property', 'ok-key', { amount: 10 }, 'amount'],
    ])('refuses %s with VALIDATION_FAILED naming the field', async (_label, key, override, field) => {
      const body = { quote_id: (await quote()).id, reference: `ref-${randomUUID()}`, ...override };
      const response = await buy(body, key).expect(422);
      expect(response.body.error.code).toBe('VALIDATION_FAILED');
      expect(Object.keys(response.body.error.fields)).toContain(field);
    });

    it('accepts keys and references of exactly 128 allowed characters', async () => {
      const key = `k_.:-${'K'.repeat(123)}`;
      const reference = `r_.:-${'R'.repeat(123)}`;
      const response = await buy({ quote_id: (await quote()).id, reference }, key).expect(202);
      expect(response.body.data.reference).toBe(reference);
      const byReference = await stack.gateway.http().get(`/api/v1/transactions/by-reference/${encodeURIComponent(reference)}`).set(bearer(vendor.token)).expect(200);
      expect(byReference.body.data.id).toBe(response.body.data.id);
    });
  });

  describe('concurrency', () => {
    it('50 concurrent identical requests create one transaction and one provider submission', async () => {
      const fresh = await stack.vendor();
      const { id: quoteId, charge_minor } = await quote(fresh);
      const body = { quote_id: quoteId, reference: 'burst' };
      const responses = await Promise.all(Array.from({ length: 50 }, () => buy(body, 'burst-key', fresh)));
      expect(responses.map((response) => response.status)).toEqual(Array(50).fill(202));
      const ids = new Set(responses.map((response) => response.body.data.id));
      expect(ids.size).toBe(1);
      expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(49);
      const [id] = [...ids];
      expect(await rowsFor(fresh.vendor.id)).toEqual([{ id, reference: 'burst', quote_id: quoteId }]);
      expect(await usedAllowance(stack, fresh.vendor.id)).toBe(charge_minor);
      await settle(stack, fresh, id, ['completed']);
      expect(await stack.sandbox.creates(id)).toBe(1);
      // The purchase row is its own submission intent: the worker claimed it from PostgreSQL, no job went through the outbox.
      const [{ outbox }] = await stack.db.query(`SELECT count(*)::int AS outbox FROM outbox_messages WHERE job_name = 'purchase.submit' AND payload->>'transactionId' = $1`, [id]);
      expect(outbox).toBe(0);
      const [claim] = await stack.db.query(`SELECT submission_attempted_at, submission_outcome FROM purchase_transactions WHERE id = $1`, [id]);
      expect(claim.submission_attempted_at).not.toBeNull();
      expect(claim.submission_outcome).toBe('accepted');
    });

    it('50 concurrent purchases with different keys on one quote give exactly one 202', async () => {
      const fresh = await stack.vendor();
      const { id: quoteId, charge_minor } = await quote(fresh);
      const responses = await Promise.all(Array.from({ length: 50 }, (_, index) => buy({ quote_id: quoteId, reference: `race-${index}` }, `race-key-${index}`, fresh)));
      const accepted = responses.filter((response) => response.status === 202);
      const refused = responses.filter((response) => response.status === 409);
      expect(accepted).toHaveLength(1);
      expect(refused).toHaveLength(49);
      refused.forEach((response) => expect(response.body.error.code).toBe('QUOTE_ALREADY_USED'));
      expect(await rowsFor(fresh.vendor.id)).toHaveLength(1);
      expect(await usedAllowance(stack, fresh.vendor.id)).toBe(charge_minor);
      const [{ keys }] = await stack.db.query(`SELECT count(*)::int AS keys FROM purchase_idempotency_keys WHERE vendor_id = $1`, [fresh.vendor.id]);
      expect(keys).toBe(1);
    });

    it('answers concurrent purchases of one quote and one reference under two keys as sequential ones: IDEMPOTENCY_CONFLICT', async () => {
      const fresh = await stack.vendor();
      const { id: quoteId, charge_minor } = await quote(fresh);
      const body = { quote_id: quoteId, reference: 'same-order' };
      // Hold the quote's row lock so both requests are inside their admission, waiting on it, at once.
      const holder = await stack.db.createQueryRunner();
      await holder.connect();
      await holder.startTransaction();
      let responses: Awaited<ReturnType<typeof buy>>[];
      try {
        await holder.query(`SELECT 1 FROM purchase_quotes WHERE id = $1 FOR UPDATE`, [quoteId]);
        const pending = Promise.all([buy(body, 'order-key-a', fresh), buy(body, 'order-key-b', fresh)]);
        // Both admissions wait on a lock: the only one the holder has is the quote's (one behind the
        // holder, the other behind the first in the quote row's queue). The admission is one
        // statement (purchase_admit), so its text names no quote lock.
        await eventually(
          () => stack.db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM purchase_admit(%'`),
          (rows: Array<{ n: number }>) => rows[0].n >= 2,
        );
        await holder.commitTransaction();
        responses = await pending;
      } finally {
        if (holder.isTransactionActive) await holder.rollbackTransaction();
        await holder.release();
      }
      expect(responses.map((response) => response.status).sort()).toEqual([202, 409]);
      const refused = responses.find((response) => response.status === 409)!;
      expect(refused.body).toEqual({ success: false, message: 'IDEMPOTENCY_CONFLICT', error: { code: 'IDEMPOTENCY_CONFLICT' } });
      // The same answer a sequential third request gets, and only the winner left anything behind.
      expect((await buy(body, 'order-key-c', fresh)).body.error.code).toBe('IDEMPOTENCY_CONFLICT');
      expect(await rowsFor(fresh.vendor.id)).toHaveLength(1);
      expect(await usedAllowance(stack, fresh.vendor.id)).toBe(charge_minor);
      const [{ keys }] = await stack.db.query(`SELECT count(*)::int AS keys FROM purchase_idempotency_keys WHERE vendor_id = $1`, [fresh.vendor.id]);
      expect(keys).toBe(1);
    });
  });

  describe('quote rules', () => {
    it('answers QUOTE_ALREADY_USED for a second purchase of a used quote', async () => {
      const { id } = await quote();
      await buy({ quote_id: id, reference: `first-${randomUUID()}` }, `k-${randomUUID()}`).expect(202);
      const second = await buy({ quote_id: id, reference: `second-${randomUUID()}` }, `k-${randomUUID()}`).expect(409);
      expect(second.body.error.code).toBe('QUOTE_ALREADY_USED');
    });

    it('answers QUOTE_EXPIRED after five minutes, and stores nothing', async () => {
      const { id } = await quote();
      await stack.db.query(`UPDATE purchase_quotes SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
      const reference = `late-${randomUUID()}`;
      const response = await buy({ quote_id: id, reference }, `k-${randomUUID()}`).expect(409);
      expect(response.body.error.code).toBe('QUOTE_EXPIRED');
      expect(await stack.db.query(`SELECT 1 FROM purchase_transactions WHERE reference = $1`, [reference])).toHaveLength(0);
    });
  });

  describe('spend controls', () => {
    it('answers SPEND_CONTROLS_NOT_CONFIGURED until staff set limits', async () => {
      const unconfigured = await stack.vendor({ limits: null });
      const { id } = await quote(unconfigured);
      const response = await buy({ quote_id: id, reference: 'r1' }, 'k1', unconfigured).expect(409);
      expect(response.body.error.code).toBe('SPEND_CONTROLS_NOT_CONFIGURED');
      const limits = await stack.gateway.http().get('/api/v1/limits').set(bearer(unconfigured.token)).expect(200);
      expect(limits.body.data).toMatchObject({ configured: false, daily_cap_minor: null });
      await stack.gateway.app.get(PurchaseSpendControlsService).setLimits(unconfigured.vendor.id, { dailyCapMinor: 1_000_000, transactionMaxMinor: 100_000, velocityCount: 10, velocityWindowSeconds: 60 });
      // Nothing was stored for the refused attempt, so the same key now succeeds.
      await buy({ quote_id: id, reference: 'r1' }, 'k1', unconfigured).expect(202);
    });

    it('answers PURCHASES_PAUSED while paused for the vendor or globally; existing purchases are still readable', async () => {
      const paused = await stack.vendor();
      const bought = await purchase(stack, paused, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821230011') });
      const spend = stack.gateway.app.get(PurchaseSpendControlsService);
      const read = () => stack.gateway.http().get('/api/v1/limits').set(bearer(paused.token));

      await spend.pause(paused.vendor.id);
      let response = await buy({ quote_id: (await quote(paused)).id, reference: 'p1' }, 'p1', paused).expect(409);
      expect(response.body.error.code).toBe('PURCHASES_PAUSED');
      expect((await read()).body.data).toMatchObject({ purchases_paused: true, paused_scope: 'vendor' });
      await stack.gateway.http().get(`/api/v1/transactions/${bought.transaction.id}`).set(bearer(paused.token)).expect(200);
      await spend.resume(paused.vendor.id);

      await spend.pause(null);
      try {
        response = await buy({ quote_id: (await quote(paused)).id, reference: 'p2' }, 'p2', paused).expect(409);
        expect(response.body.error.code).toBe('PURCHASES_PAUSED');
        expect((await read()).body.data).toMatchObject({ purchases_paused: true, paused_scope: 'global' });
      } finally {
        await spend.resume(null);
      }
      await buy({ quote_id: (await quote(paused)).id, reference: 'p3' }, 'p3', paused).expect(202);
    });

    it('answers TRANSACTION_MAXIMUM_EXCEEDED above the per-transaction maximum', async () => {
      const capped = await stack.vendor({ limits: { transactionMaxMinor: 500 } });
      const response = await buy({ quote_id: (await quote(capped)).id, reference: 'big' }, 'big', capped).expect(409);
      expect(response.body.error.code).toBe('TRANSACTION_MAXIMUM_EXCEEDED');
      expect(await usedAllowance(stack, capped.vendor.id)).toBe(0);
    });

    it('answers DAILY_CAP_EXCEEDED with remaining_minor once the day’s allowance cannot cover the charge', async () => {
      const probe = await quote();
      const cap = Math.floor(probe.charge_minor * 1.5);
      const capped = await stack.vendor({ limits: { dailyCapMinor: cap } });
      await buy({ quote_id: (await quote(capped)).id, reference: 'c1' }, 'c1', capped).expect(202);
      const refused = await buy({ quote_id: (await quote(capped)).id, reference: 'c2' }, 'c2', capped).expect(409);
      expect(refused.body).toEqual({
        success: false,
        message: 'DAILY_CAP_EXCEEDED',
        error: { code: 'DAILY_CAP_EXCEEDED', remaining_minor: cap - probe.charge_minor },
      });
      expect(await usedAllowance(stack, capped.vendor.id)).toBe(probe.charge_minor);
    });

    it('gives the allowance back on a verified failure but not on a reversal', async () => {
      const probe = await quote();
      const capped = await stack.vendor({ limits: { dailyCapMinor: probe.charge_minor } });
      const declined = await purchase(stack, capped, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821231101') });
      await settle(stack, capped, declined.transaction.id, ['failed']);
      expect(await usedAllowance(stack, capped.vendor.id)).toBe(0);
      const reversed = await purchase(stack, capped, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821231104') });
      await settle(stack, capped, reversed.transaction.id, ['reversed']);
      expect(await usedAllowance(stack, capped.vendor.id)).toBe(probe.charge_minor);
      const refused = await buy({ quote_id: (await quote(capped)).id, reference: 'after-reversal' }, 'after-reversal', capped).expect(409);
      expect(refused.body.error).toEqual({ code: 'DAILY_CAP_EXCEEDED', remaining_minor: 0 });
    }, 20_000);

    it('answers VELOCITY_LIMIT_EXCEEDED with Retry-After beyond N purchases per window', async () => {
      const fast = await stack.vendor({ limits: { velocityCount: 2, velocityWindowSeconds: 60 } });
      await buy({ quote_id: (await quote(fast)).id, reference: 'v1' }, 'v1', fast).expect(202);
      await buy({ quote_id: (await quote(fast)).id, reference: 'v2' }, 'v2', fast).expect(202);
      const refused = await buy({ quote_id: (await quote(fast)).id, reference: 'v3' }, 'v3', fast).expect(429);
      expect(refused.body.error.code).toBe('VELOCITY_LIMIT_EXCEEDED');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(55);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(await rowsFor(fast.vendor.id)).toHaveLength(2);
    });

    it('runs on connections pinned to READ COMMITTED, which the admission transaction relies on without asking per transaction', async () => {
      const levels = await Promise.all([1, 2, 3].map(() => stack.db.query(`SHOW default_transaction_isolation`)));
      expect(levels.map(([row]) => row.default_transaction_isolation)).toEqual(['read committed', 'read committed', 'read committed']);
    });

    it('counts velocity from per-second counters exactly as a count of the purchases themselves, at every window start', async () => {
      const spaced = await stack.vendor();
      for (let index = 0; index < 7; index++) {
        await buy({ quote_id: (await quote(spaced)).id, reference: `spaced-${index}` }, `spaced-${index}`, spaced).expect(202);
        await new Promise((resolve) => setTimeout(resolve, 230));
      }
      const [span] = await stack.db.query(
        `SELECT (extract(epoch FROM min(created_at)) * 1000)::float8 AS first_ms, (extract(epoch FROM max(created_at)) * 1000)::float8 AS last_ms
           FROM purchase_transactions WHERE vendor_id = $1`,
        [spaced.vendor.id],
      );
      const buckets = await stack.db.query(`SELECT sum(admissions)::int AS total, count(*)::int AS seconds FROM purchase_velocity_buckets WHERE vendor_id = $1`, [
        spaced.vendor.id,
      ]);
      expect(buckets[0].total).toBe(7);
      expect(buckets[0].seconds).toBeGreaterThan(1);

      const spend = stack.gateway.app.get(PurchaseSpendControlsService);
      const compared: number[] = [];
      // Window starts every 17 ms from before the first purchase to after the last: inside, at and across second boundaries.
      for (let startMs = Math.floor(span.first_ms) - 500; startMs <= span.last_ms + 100; startMs += 17) {
        const windowStart = new Date(startMs);
        const [direct] = await stack.db.query(`SELECT count(*)::int AS n FROM purchase_transactions WHERE vendor_id = $1 AND created_at > $2`, [
          spaced.vendor.id,
          windowStart,
        ]);
        expect({ startMs, count: await spend.admissionsSince(stack.db.manager, spaced.vendor.id, windowStart) }).toEqual({ startMs, count: direct.n });
        compared.push(direct.n);
      }
      // The sweep went from all seven purchases down to none.
      expect(Math.max(...compared)).toBe(7);
      expect(Math.min(...compared)).toBe(0);
    });
  });

  describe('tenancy and reads', () => {
    it('answers 404 for another vendor’s transaction, reference, fulfilment and quote, 422 for buying their quote', async () => {
      const owner = await stack.vendor();
      const stranger = await stack.vendor();
      const bought = await purchase(stack, owner, { product_id: PRODUCTS.pin, ...mobile('27821230020') });
      await settle(stack, owner, bought.transaction.id, ['completed']);
      const as = (path: string) => stack.gateway.http().get(`/api/v1${path}`).set(bearer(stranger.token));
      for (const path of [
        `/transactions/${bought.transaction.id}`,
        `/transactions/by-reference/${bought.reference}`,
        `/transactions/${bought.transaction.id}/fulfilment`,
        `/quotes/${bought.quote.id}`,
        '/transactions/not-a-uuid',
        `/transactions/${randomUUID()}`,
      ]) {
        const response = await as(path).expect(404);
        expect(response.body).toEqual({ success: false, message: 'NOT_FOUND', error: { code: 'NOT_FOUND' } });
      }
      const list = await as('/transactions').expect(200);
      expect(list.body.data.total).toBe(0);
      // Buying another vendor's quote is invalid input (issue 25): the answer for an unknown quote.
      const theirQuote = await quote(owner);
      const stolen = await buy({ quote_id: theirQuote.id, reference: 'steal' }, 'steal', stranger).expect(422);
      const unknown = await buy({ quote_id: randomUUID(), reference: 'steal' }, 'steal-2', stranger).expect(422);
      expect(stolen.body).toEqual({ success: false, message: 'VALIDATION_FAILED', error: { code: 'VALIDATION_FAILED', fields: { quote_id: ['quote_id does not name a quote of this vendor'] } } });
      expect(unknown.body).toEqual(stolen.body);
    });

    it('lists transactions with filters, whole Johannesburg days and pagination', async () => {
      const lister = await stack.vendor();
      const fixed = await purchase(stack, lister, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821230030') });
      const ranged = await purchase(stack, lister, { product_id: PRODUCTS.rangedAirtime, destination_amount: '20.00', ...mobile('27821230031') });
      const failing = await purchase(stack, lister, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821230001') });
      await settle(stack, lister, failing.transaction.id, ['failed']);
      const list = (query: string) => stack.gateway.http().get(`/api/v1/transactions${query}`).set(bearer(lister.token));
      // Days from the admissions' own timestamps, not from the clock after buying: a run across
      // midnight Johannesburg admits on one day and would ask about the next.
      const [{ first_day: firstDay, last_day: lastDay, day_before: yesterday }] = await stack.db.query(
        `SELECT to_char(min(created_at) AT TIME ZONE 'Africa/Johannesburg', 'YYYY-MM-DD') AS first_day,
                to_char(max(created_at) AT TIME ZONE 'Africa/Johannesburg', 'YYYY-MM-DD') AS last_day,
                to_char(min(created_at) AT TIME ZONE 'Africa/Johannesburg' - interval '1 day', 'YYYY-MM-DD') AS day_before
           FROM purchase_transactions WHERE vendor_id = $1`,
        [lister.vendor.id],
      );

      const all = await list('').expect(200);
      expect(all.body.data).toMatchObject({ page: 1, total: 3, last_page: 1 });
      expect(all.body.data.items.map((item: { id: string }) => item.id)).toEqual([failing, ranged, fixed].map((bought) => bought.transaction.id));
      expect((await list('?status=failed').expect(200)).body.data.items.map((item: { id: string }) => item.id)).toEqual([failing.transaction.id]);
      expect((await list(`?reference=${ranged.reference}`).expect(200)).body.data.total).toBe(1);
      expect((await list(`?product_id=${PRODUCTS.rangedAirtime}`).expect(200)).body.data.total).toBe(1);
      expect((await list(`?date_from=${firstDay}&date_to=${lastDay}`).expect(200)).body.data.total).toBe(3);
      expect((await list(`?date_to=${yesterday}`).expect(200)).body.data.total).toBe(0);
      const paged = await list('?per_page=2&page=2').expect(200);
      expect(paged.body.data).toMatchObject({ page: 2, total: 3, last_page: 2 });
      expect(paged.body.data.items).toHaveLength(1);

      for (const query of ['?status=done', '?date_from=2026-13-01', '?date_from=yesterday', `?date_from=${firstDay}&date_to=${yesterday}`, '?per_page=101', '?page=0']) {
        const response = await list(query).expect(422);
        expect(response.body.error.code).toBe('VALIDATION_FAILED');
      }
    });
  });
});
