import { randomBytes, randomUUID } from 'node:crypto';
import { PAYOUT_METHODS, PayoutLedgerService, PayoutMethodsService } from '#payout';
import { startPayoutGateway, type RunningApp } from '../support/apps.js';
import { startPayoutStack, type PayoutStack } from '../support/payout-stack.js';
import { bearer, createTestVendor } from '../support/vendors.js';
import { cashPayout, uniqueReference, voucherPayout } from './payout-requests.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * `POST /api/v1/payouts/validate` and `POST /api/v1/batches/validate`, the dry runs of
 * `POST /api/v1/payouts` and `POST /api/v1/batches`: they say what the real call would do and
 * change nothing (no payout or batch row, ledger entry, balance, webhook event, outbox job or
 * provider submission; the write rate bucket untouched), and answer every refusal with exactly
 * the status and body the real call gives.
 */
describe('payout dry run', () => {
  let stack: PayoutStack;

  beforeAll(async () => {
    // A write bucket of 2 per minute: a dry run that used it would make the second real call 429.
    stack = await startPayoutStack({ worker: false, config: { RATE_LIMIT_WRITE_PER_MINUTE: '2' } });
  });
  afterAll(async () => stack?.close());
  afterEach(async () => expect(await stack.discrepancies()).toEqual([]));

  const post = (path: string, token: string, body: Json) => stack.gateway.http().post(path).set(bearer(token)).send(body);
  const dryRun = (token: string, body: Json) => post('/api/v1/payouts/validate', token, body);
  const real = (token: string, body: Json) => post('/api/v1/payouts', token, body);

  /** Everything a payout request can change for a vendor. */
  const stateOf = async (vendorId: string) => {
    const [row] = await stack.dataSource.query(
      `SELECT (SELECT count(*)::int FROM payouts WHERE vendor_id = $1) AS payouts,
              (SELECT count(*)::int FROM ledger_entries WHERE vendor_id = $1) AS ledger_entries,
              (SELECT count(*)::int FROM webhook_events WHERE vendor_id = $1) AS webhook_events,
              (SELECT count(*)::int FROM outbox_messages) AS outbox_messages,
              (SELECT available_cents::text || '/' || reserved_cents::text FROM payout_accounts WHERE vendor_id = $1) AS balances`,
      [vendorId],
    );
    return row;
  };

  /** A call's answer, status and body; request ids (a header, and a member of 5xx bodies) differ per request and are left out. */
  const answerOf = (response: { status: number; body: Json }) => ({
    status: response.status,
    body: JSON.parse(JSON.stringify(response.body, (name, value) => (name === 'request_id' ? undefined : value))),
  });

  /**
   * Takes the vendor's account below zero the way the books allow it: an adjust_debit correction
   * sourced from an exception (a debt, so reserves answer ACCOUNT_IN_DEBT).
   */
  const putInDebt = async (vendorId: string, cents: bigint) => {
    const [exception] = await stack.dataSource.query(
      `INSERT INTO reconciliation_exceptions (domain, kind, dedupe_key, vendor_id) VALUES ('payout', 'amount_mismatch', $1, $2) RETURNING id`,
      [`e2e-dry-run-debt-${randomUUID()}`, vendorId],
    );
    await stack.dataSource.transaction((manager) =>
      stack.gateway.app.get(PayoutLedgerService).correct(manager, { kind: 'adjust_debit', vendorId, cents, payoutId: null, reason: 'e2e: a debt', exceptionId: exception.id, proposalId: null, approvedBy: 'e2e' }),
    );
  };

  it('says what the real call would do, and changes nothing, not even the write rate bucket', async () => {
    const vendor = await stack.vendor({ fundCents: 100_000n, feePerPayoutCents: 500n });
    const request = cashPayout('55', { amount: '200.00' });
    const before = await stateOf(vendor.vendor.id);

    const first = await dryRun(vendor.token, request).expect(200);
    expect(first.body).toEqual({
      success: true,
      data: { outcome: 'create', reference: request.reference, method: 'bank_a_instant_money', amount: '200.00', fee: '5.00', currency: 'ZAR', hold: '205.00', available_after: '795.00' },
    });
    expect(await stateOf(vendor.vendor.id)).toEqual(before);
    // The provider never saw it: no submission under any merchant reference of this vendor exists.
    expect(await stack.dataSource.query(`SELECT 1 FROM payouts WHERE reference = $1`, [request.reference])).toEqual([]);

    // Both real writes of the minute are still there: the dry runs counted in their own bucket.
    const paid = await real(vendor.token, request).expect(200);
    expect(paid.headers['x-ratelimit-remaining']).toBe('1');
    expect(paid.body.data.status).toBe('paid');
    await real(vendor.token, cashPayout('55', { amount: '20.00' })).expect(200);
    expect(await stack.submissions(paid.body.data.merchant_reference)).toMatchObject({ count: 1 });

    // The same payload again is a replay: the dry run says so, and still changes nothing.
    const afterPaid = await stateOf(vendor.vendor.id);
    const replay = await dryRun(vendor.token, request).expect(200);
    expect(replay.body.data).toEqual({ outcome: 'replay', reference: request.reference, method: 'bank_a_instant_money', amount: '200.00', fee: '5.00', currency: 'ZAR', hold: '205.00', available_after: null });
    expect(await stateOf(vendor.vendor.id)).toEqual(afterPaid);
    expect(await stack.submissions(paid.body.data.merchant_reference)).toMatchObject({ count: 1 });
  });

  it('has a bucket of its own, as large as the write bucket', async () => {
    const vendor = await stack.vendor();
    const request = cashPayout('55');
    await dryRun(vendor.token, request).expect(200);
    await dryRun(vendor.token, request).expect(200);
    const limited = await dryRun(vendor.token, request).expect(429);
    expect(limited.body.code).toBe('API_RATE_LIMITED');
  });

  /** Refusals a request can meet, each set up on a vendor of its own (a token, so its own buckets). */
  type Refusal = [string, (token: string, vendorId: string) => Promise<Json>, { fundCents?: bigint }];
  // Every row has all three members: jest hands a shorter row's test a `done` callback instead.
  const refusals: Refusal[] = [
    ['VALIDATION_FAILED (every field at once)', async () => ({ ...cashPayout('55'), amount: 'ten', currency: 'USD', recipient: { first_name: '' } }), {}],
    ['VALIDATION_FAILED (method without bank account)', async () => ({ ...cashPayout('55'), method: 'rtc_eft', amount: '20.00' }), {}],
    ['AMOUNT_INCREMENT_INVALID', async () => cashPayout('55', { amount: '25.00' }), {}],
    [
      'METHOD_UNAVAILABLE',
      async (_token, vendorId) => {
        await stack.gateway.app.get(PayoutMethodsService).configure(vendorId, { disable: ['voucher_type_4'] });
        return voucherPayout('55', { method: 'voucher_type_4' });
      },
      {},
    ],
    ['INSUFFICIENT_FUNDS', async () => cashPayout('55', { amount: '200.00' }), { fundCents: 10_000n }],
    [
      'ACCOUNT_IN_DEBT',
      async (_token, vendorId) => {
        await putInDebt(vendorId, 20_000n);
        return cashPayout('55', { amount: '20.00' });
      },
      { fundCents: 10_000n },
    ],
    [
      'REFERENCE_CONFLICT',
      async (token) => {
        const first = cashPayout('55', { amount: '20.00' });
        await real(token, first).expect(200);
        return { ...first, amount: '30.00' };
      },
      {},
    ],
    [
      'PROVIDER_REJECTED (a refused payout replayed)',
      async (token) => {
        const refused = cashPayout('01', { amount: '20.00' });
        await real(token, refused).expect(422);
        return refused;
      },
      {},
    ],
  ];

  /** A refusal row's test: the dry run on `dryPath` answers what the real call on `realPath` then answers, and neither changes anything. */
  const answersAsTheRealCall =
    (dryPath: string, realPath: string) =>
    async (...[, setUp, funding]: Refusal) => {
      const vendor = await stack.vendor({ fundCents: funding.fundCents ?? 1_000_000n });
      const request = await setUp(vendor.token, vendor.vendor.id);
      const before = await stateOf(vendor.vendor.id);
      const dry = await post(dryPath, vendor.token, request);
      expect(dry.status).toBeGreaterThanOrEqual(400);
      expect(await stateOf(vendor.vendor.id)).toEqual(before);
      const answered = await post(realPath, vendor.token, request);
      expect(answerOf(dry)).toEqual(answerOf(answered));
      // The refusal of the real call wrote nothing either.
      expect(await stateOf(vendor.vendor.id)).toEqual(before);
    };

  it.each(refusals)('answers %s exactly as the real call does, and changes nothing', answersAsTheRealCall('/api/v1/payouts/validate', '/api/v1/payouts'));

  it('is described in the payout document next to the real call, with the same error codes', async () => {
    const document = (await stack.gateway.http().get('/docs-json').expect(200)).body;
    const validate = document.paths['/api/v1/payouts/validate'].post;
    const create = document.paths['/api/v1/payouts'].post;
    expect(validate.requestBody).toEqual(create.requestBody);
    const codes = (operation: Json) => Object.keys(operation.responses).filter((status) => Number(status) >= 400).map((status) => operation.responses[status].description).sort();
    expect(codes(validate)).toEqual(codes(create));
  });

  describe('batches', () => {
    const batchDryRun = (token: string, body: Json) => post('/api/v1/batches/validate', token, body);
    const realBatch = (token: string, body: Json) => post('/api/v1/batches', token, body);
    const batchOf = (...payouts: Json[]) => ({ reference: uniqueReference('batch'), payouts });

    it('says item by item what the real batch would do, and changes nothing, not even the write rate bucket', async () => {
      const vendor = await stack.vendor({ fundCents: 100_000n, feePerPayoutCents: 500n });
      const request = batchOf(cashPayout('55', { amount: '200.00' }), cashPayout('55', { amount: '100.00' }));
      const before = await stateOf(vendor.vendor.id);

      const first = await batchDryRun(vendor.token, request).expect(200);
      const item = (payout: Json, amount: string, hold: string, availableAfter: string | null, outcome = 'create') => ({
        outcome,
        reference: payout.reference,
        method: 'bank_a_instant_money',
        amount,
        fee: '5.00',
        currency: 'ZAR',
        hold,
        available_after: availableAfter,
      });
      expect(first.body).toEqual({
        success: true,
        data: {
          outcome: 'create',
          reference: request.reference,
          item_count: 2,
          total_amount: '300.00',
          total_fee: '10.00',
          total_hold: '310.00',
          currency: 'ZAR',
          available_after: '690.00',
          payouts: [item(request.payouts[0], '200.00', '205.00', '795.00'), item(request.payouts[1], '100.00', '105.00', '690.00')],
        },
      });
      expect(await stateOf(vendor.vendor.id)).toEqual(before);

      // The real batch does what the dry run said, and both real writes of the minute are still there.
      const accepted = await realBatch(vendor.token, request).expect(202);
      expect(accepted.headers['x-ratelimit-remaining']).toBe('1');
      expect(accepted.body.data).toMatchObject({ reference: request.reference, total_amount: '300.00', total_fee: '10.00', item_count: 2 });
      expect((await stateOf(vendor.vendor.id)).balances).toBe('69000/31000');

      // The same payload again is a replay: the dry run says so with the stored items, and still changes nothing.
      const afterAccepted = await stateOf(vendor.vendor.id);
      const replay = await batchDryRun(vendor.token, request).expect(200);
      expect(replay.body.data).toEqual({
        ...first.body.data,
        outcome: 'replay',
        available_after: null,
        payouts: [item(request.payouts[0], '200.00', '205.00', null, 'replay'), item(request.payouts[1], '100.00', '105.00', null, 'replay')],
      });
      expect(await stateOf(vendor.vendor.id)).toEqual(afterAccepted);
      const replayed = await realBatch(vendor.token, request).expect(202);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(await stateOf(vendor.vendor.id)).toEqual(afterAccepted);
    });

    it('counts in the dry runs\' bucket, not the write bucket', async () => {
      const vendor = await stack.vendor();
      const request = batchOf(cashPayout('55'));
      await batchDryRun(vendor.token, request).expect(200);
      await dryRun(vendor.token, cashPayout('55')).expect(200);
      const limited = await batchDryRun(vendor.token, request).expect(429);
      expect(limited.body.code).toBe('API_RATE_LIMITED');
      await realBatch(vendor.token, request).expect(202);
    });

    // Every row has all three members: jest hands a shorter row's test a `done` callback instead.
    const batchRefusals: Refusal[] = [
      ['VALIDATION_FAILED (an item\'s fields, keyed by its index)', async () => batchOf(cashPayout('55'), { ...cashPayout('55'), amount: 'ten', currency: 'USD' }), {}],
      ['VALIDATION_FAILED (no items)', async () => ({ reference: uniqueReference('batch'), payouts: [] }), {}],
      [
        'VALIDATION_FAILED (a reference repeated in the batch)',
        async () => {
          const item = cashPayout('55', { amount: '20.00' });
          return batchOf(item, { ...item, amount: '30.00' });
        },
        {},
      ],
      [
        'VALIDATION_FAILED (an item reference already used)',
        async (token) => {
          const used = cashPayout('55', { amount: '20.00' });
          await real(token, used).expect(200);
          return batchOf(cashPayout('55', { amount: '20.00' }), { ...used, amount: '30.00' });
        },
        {},
      ],
      ['AMOUNT_INCREMENT_INVALID', async () => batchOf(cashPayout('55', { amount: '20.00' }), cashPayout('55', { amount: '25.00' })), {}],
      [
        'METHOD_UNAVAILABLE',
        async (_token, vendorId) => {
          await stack.gateway.app.get(PayoutMethodsService).configure(vendorId, { disable: ['voucher_type_4'] });
          return batchOf(cashPayout('55', { amount: '20.00' }), voucherPayout('55', { method: 'voucher_type_4' }));
        },
        {},
      ],
      // Each item fits the balance; the batch, reserved all or nothing, does not.
      ['INSUFFICIENT_FUNDS', async () => batchOf(cashPayout('55', { amount: '200.00' }), cashPayout('55', { amount: '200.00' })), { fundCents: 30_000n }],
      [
        'ACCOUNT_IN_DEBT',
        async (_token, vendorId) => {
          await putInDebt(vendorId, 20_000n);
          return batchOf(cashPayout('55', { amount: '20.00' }));
        },
        { fundCents: 10_000n },
      ],
      [
        'REFERENCE_CONFLICT',
        async (token) => {
          const first = batchOf(cashPayout('55', { amount: '20.00' }));
          await realBatch(token, first).expect(202);
          return { ...first, payouts: [{ ...first.payouts[0], amount: '30.00' }] };
        },
        {},
      ],
    ];

    it.each(batchRefusals)('answers %s exactly as the real call does, and changes nothing', answersAsTheRealCall('/api/v1/batches/validate', '/api/v1/batches'));

    it('is described in the payout document next to the real call, with the same error codes', async () => {
      const document = (await stack.gateway.http().get('/docs-json').expect(200)).body;
      const validate = document.paths['/api/v1/batches/validate'].post;
      const create = document.paths['/api/v1/batches'].post;
      expect(validate.requestBody).toEqual(create.requestBody);
      const codes = (operation: Json) => Object.keys(operation.responses).filter((status) => Number(status) >= 400).map((status) => operation.responses[status].description).sort();
      expect(codes(validate)).toEqual(codes(create));
    });
  });

  describe('in production', () => {
    const gateways: RunningApp[] = [];
    afterAll(async () => Promise.all(gateways.map((gateway) => gateway.close())));

    const production = async (config: Record<string, string>) => {
      const gateway = await startPayoutGateway({ config: { APP_ENV: 'production', ...config } });
      gateways.push(gateway);
      const vendor = await createTestVendor(gateway.app, 'Production vendor');
      await gateway.app.get(PayoutMethodsService).configure(vendor.vendor.id, { enable: PAYOUT_METHODS });
      await gateway.app.get(PayoutLedgerService).fund(vendor.vendor.id, 100_000n);
      return { gateway, vendor };
    };
    const batchOfOne = () => ({ reference: uniqueReference('batch'), payouts: [cashPayout('55')] });

    it.each([
      ['PROVIDER_NOT_CONFIGURED (no provider settings or keys)', {}],
      [
        'VENDOR_NOT_RELEASED (a vendor not yet accepted)',
        { PAYOUT_PROVIDER_BASE_URL: 'http://127.0.0.1:9', PAYOUT_PROVIDER_API_KEY: 'k', ENCRYPTION_KEYS: `p1:${randomBytes(32).toString('base64')}`, ENCRYPTION_ACTIVE_KEY_ID: 'p1' },
      ],
    ])('answers %s on both dry runs exactly as the real calls do, and changes nothing', async (_name, config: Record<string, string>) => {
      const { gateway, vendor } = await production(config);
      const send = (path: string, body: Json) => gateway.http().post(path).set(bearer(vendor.token)).send(body);
      const payout = cashPayout('55');
      const batch = batchOfOne();
      const before = await stateOf(vendor.vendor.id);
      const dryPayout = await send('/api/v1/payouts/validate', payout);
      const dryBatch = await send('/api/v1/batches/validate', batch);
      expect(dryPayout.status).toBeGreaterThanOrEqual(400);
      expect(await stateOf(vendor.vendor.id)).toEqual(before);
      expect(answerOf(dryPayout)).toEqual(answerOf(await send('/api/v1/payouts', payout)));
      expect(answerOf(dryBatch)).toEqual(answerOf(await send('/api/v1/batches', batch)));
      expect(await stateOf(vendor.vendor.id)).toEqual(before);
    });
  });
});
