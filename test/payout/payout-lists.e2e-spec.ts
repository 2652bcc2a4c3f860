import { bearer } from '../support/vendors.js';
import { eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { cashPayout, rtcPayout, uniqueReference } from './payout-requests.js';

describe('payout and batch lists', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;
  let other: PayoutTestVendor;
  const prefix = uniqueReference('lst');
  const singles = [
    cashPayout('55', { reference: `${prefix}-a1`, amount: '20.00' }),
    cashPayout('55', { reference: `${prefix}-a2`, amount: '30.00' }),
    cashPayout('01', { reference: `${prefix}-b1`, amount: '40.00' }),
    rtcPayout('55', { reference: `${prefix}-b2`, amount: '12.34' }),
  ];
  const batchReference = `${prefix}-batch`;
  const items = [cashPayout('55', { reference: `${prefix}-c1`, amount: '10.00' }), cashPayout('55', { reference: `${prefix}-c2`, amount: '20.00' }), cashPayout('01', { reference: `${prefix}-c3`, amount: '30.00' })];

  beforeAll(async () => {
    stack = await startPayoutStack();
    vendor = await stack.vendor({ fundCents: 1_000_000n, feePerPayoutCents: 100n });
    other = await stack.vendor({ fundCents: 1_000_000n });
    await stack.gateway.http().post('/api/v1/payouts').set(bearer(other.token)).send(cashPayout('55', { reference: `${prefix}-theirs` })).expect(200);
    for (const payout of singles) await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(payout);
    await stack.gateway.http().post('/api/v1/batches').set(bearer(vendor.token)).send({ reference: batchReference, payouts: items }).expect(202);
    await eventually(async () => {
      const batch = (await stack.gateway.http().get(`/api/v1/batches/${batchReference}`).set(bearer(vendor.token)).expect(200)).body.data;
      expect(batch.status).toBe('completed_with_failures');
    }, 30_000, 200);
  }, 90_000);
  afterAll(async () => stack?.close());

  const get = (path: string, token = vendor.token) => stack.gateway.http().get(path).set(bearer(token));

  async function all(path: string, query: string, token = vendor.token): Promise<Array<Record<string, unknown>>> {
    const collected: Array<Record<string, unknown>> = [];
    let cursor: string | null = null;
    do {
      const url: string = `${path}?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const page = (await get(url, token).expect(200)).body.data;
      expect(page.items.length).toBeLessThanOrEqual(page.per_page);
      collected.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return collected;
  }
  const references = (rows: Array<Record<string, unknown>>) => rows.map((row) => row.reference);

  it('lists every payout of the vendor once, newest first, over cursor pages, without delivery codes', async () => {
    const payouts = await all('/api/v1/payouts', 'per_page=2');
    expect(new Set(references(payouts))).toEqual(new Set([...singles, ...items].map((payout) => payout.reference)));
    expect(payouts).toHaveLength(singles.length + items.length);
    const created = payouts.map((payout) => Date.parse(payout.created_at as string));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(payouts.every((payout) => payout.delivery === null)).toBe(true);
    expect(payouts.find((payout) => payout.reference === singles[3].reference)).toMatchObject({ method: 'rtc_eft', amount: '12.34', fee: '1.00', currency: 'ZAR' });
  });

  it('filters by status, method, reference prefix, batch and days', async () => {
    expect(new Set(references(await all('/api/v1/payouts', 'status=failed')))).toEqual(new Set([singles[2].reference, items[2].reference]));
    expect(references(await all('/api/v1/payouts', 'method=rtc_eft'))).toEqual([singles[3].reference]);
    expect(new Set(references(await all('/api/v1/payouts', `reference_prefix=${prefix}-a`)))).toEqual(new Set([singles[0].reference, singles[1].reference]));
    expect(new Set(references(await all('/api/v1/payouts', `batch=${batchReference}&per_page=1`)))).toEqual(new Set(items.map((item) => item.reference)));
    expect(await all('/api/v1/payouts', 'date_from=2020-01-01&date_to=2020-01-31')).toEqual([]);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Johannesburg' }).format(new Date());
    expect(await all('/api/v1/payouts', `date_from=${today}&date_to=${today}`)).toHaveLength(singles.length + items.length);
    // Another vendor's payouts never appear, whatever the filter.
    expect(references(await all('/api/v1/payouts', `reference_prefix=${prefix}`, other.token))).toEqual([`${prefix}-theirs`]);
    expect(await all('/api/v1/payouts', `batch=${batchReference}`, other.token)).toEqual([]);
  });

  it('lists batches with their derived status and totals, without items', async () => {
    const batches = await all('/api/v1/batches', `reference_prefix=${prefix}`);
    expect(batches).toEqual([
      expect.objectContaining({ reference: batchReference, status: 'completed_with_failures', item_count: 3, total_amount: '60.00', total_fee: '3.00', currency: 'ZAR' }),
    ]);
    expect(batches[0]).not.toHaveProperty('payouts');
    expect(await all('/api/v1/batches', `reference_prefix=${prefix}`, other.token)).toEqual([]);
  });

  it('refuses bad filters and cursors in the envelope, and a token without payouts:read', async () => {
    const bad = await get('/api/v1/payouts?status=lost&method=pigeon&per_page=500&reference_prefix=%3Dcmd').expect(422);
    expect(bad.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
    expect(Object.keys(bad.body.errors).sort()).toEqual(['method', 'per_page', 'reference_prefix', 'status']);
    // A cursor of another list is not a cursor of this one.
    const statementCursor = (await get('/api/v1/statement?per_page=1').expect(200)).body.data.next_cursor as string;
    expect((await get(`/api/v1/payouts?cursor=${statementCursor}`).expect(422)).body.errors).toHaveProperty('cursor');
    const payoutCursor = (await get('/api/v1/payouts?per_page=1').expect(200)).body.data.next_cursor as string;
    expect((await get(`/api/v1/batches?cursor=${payoutCursor}`).expect(422)).body.errors).toHaveProperty('cursor');
    const writeOnly = (await vendor.issue(['payouts:write'])).token;
    await get('/api/v1/payouts', writeOnly).expect(403);
    await get('/api/v1/batches', writeOnly).expect(403);
  });

  it('exports the filtered payouts and the batches with their items as CSV, oldest first, matching the lists', async () => {
    const csv = async (path: string, token = vendor.token) => {
      const response = await get(path, token).expect(200);
      expect(response.headers['content-type']).toContain('text/csv');
      return response.text.split('\r\n').filter((line) => line.length > 0).map((line) => line.split(','));
    };
    const [header, ...rows] = await csv(`/api/v1/exports/payouts?reference_prefix=${prefix}`);
    expect(header).toEqual(['payout_id', 'reference', 'batch_reference', 'status', 'status_reason', 'method', 'currency', 'amount', 'fee', 'merchant_reference', 'provider_reference', 'created_at', 'paid_at']);
    const listed = await all('/api/v1/payouts', `reference_prefix=${prefix}`);
    expect(rows.map((row) => row[1])).toEqual(references(listed).reverse());
    const rtc = rows.find((row) => row[1] === singles[3].reference)!;
    expect(rtc.slice(5, 9)).toEqual(['rtc_eft', 'ZAR', '12.34', '1.00']);
    expect(rows.filter((row) => row[2] === batchReference)).toHaveLength(3);
    expect((await csv('/api/v1/exports/payouts?status=failed')).slice(1).map((row) => row[1]).sort()).toEqual([singles[2].reference, items[2].reference].sort());

    const [batchHeader, ...itemRows] = await csv(`/api/v1/exports/batches?reference_prefix=${prefix}`);
    expect(batchHeader.slice(0, 6)).toEqual(['batch_id', 'batch_reference', 'batch_status', 'batch_created_at', 'item_position', 'payout_id']);
    expect(itemRows.map((row) => [row[1], row[2], row[6], row[7], row[11]])).toEqual([
      [batchReference, 'completed_with_failures', items[0].reference, 'paid', '10.00'],
      [batchReference, 'completed_with_failures', items[1].reference, 'paid', '20.00'],
      [batchReference, 'completed_with_failures', items[2].reference, 'failed', '30.00'],
    ]);
    // Another vendor's export never holds them; a reversed range is refused before the download starts.
    expect((await csv(`/api/v1/exports/payouts?reference_prefix=${prefix}`, other.token)).slice(1).map((row) => row[1])).toEqual([`${prefix}-theirs`]);
    expect(await csv(`/api/v1/exports/batches?reference_prefix=${prefix}`, other.token)).toHaveLength(1);
    expect((await get('/api/v1/exports/batches?date_from=2026-11-02&date_to=2026-11-01').expect(422)).body.errors).toHaveProperty('date_from');
    await get('/api/v1/exports/payouts', (await vendor.issue(['payouts:write'])).token).expect(403);
  });
});
