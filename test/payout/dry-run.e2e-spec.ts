import { PayoutMethodsService } from '#payout';
import { startPayoutStack, type PayoutStack } from '../support/payout-stack.js';
import { bearer } from '../support/vendors.js';
import { cashPayout, voucherPayout } from './payout-requests.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * `POST /api/v1/payouts/validate`, the dry run of `POST /api/v1/payouts`: it says what the real
 * call would do and changes nothing (no payout row, ledger entry, balance, webhook event, outbox
 * job or provider submission; the write rate bucket untouched), and answers every refusal with
 * exactly the status and body the real call gives.
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

  /** The real call's answer, status and body; the request ids differ and are left out. */
  const answerOf = (response: { status: number; body: Json }) => ({ status: response.status, body: response.body });

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
  // Every row has all three members: jest hands a shorter row's test a `done` callback instead.
  const refusals: Array<[string, (token: string, vendorId: string) => Promise<Json>, { fundCents?: bigint }]> = [
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

  it.each(refusals)('answers %s exactly as the real call does, and changes nothing', async (_name, setUp, funding) => {
    const vendor = await stack.vendor({ fundCents: funding.fundCents ?? 1_000_000n });
    const request = await setUp(vendor.token, vendor.vendor.id);
    const before = await stateOf(vendor.vendor.id);
    const dry = await dryRun(vendor.token, request);
    expect(dry.status).toBeGreaterThanOrEqual(400);
    expect(await stateOf(vendor.vendor.id)).toEqual(before);
    const answered = await real(vendor.token, request);
    expect(answerOf(dry)).toEqual(answerOf(answered));
    // The refusal of the real call wrote nothing either.
    expect(await stateOf(vendor.vendor.id)).toEqual(before);
  });

  it('is described in the payout document next to the real call, with the same error codes', async () => {
    const document = (await stack.gateway.http().get('/docs-json').expect(200)).body;
    const validate = document.paths['/api/v1/payouts/validate'].post;
    const create = document.paths['/api/v1/payouts'].post;
    expect(validate.requestBody).toEqual(create.requestBody);
    const codes = (operation: Json) => Object.keys(operation.responses).filter((status) => Number(status) >= 400).map((status) => operation.responses[status].description).sort();
    expect(codes(validate)).toEqual(codes(create));
  });
});
