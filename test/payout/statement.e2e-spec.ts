import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { PayoutLedgerService } from '#payout';
import { StatementRepository } from '../../libs/payout/src/persistence/statement.repository.js';
import { bearer } from '../support/vendors.js';
import { eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { cashPayout, uniqueReference } from './payout-requests.js';

interface Line {
  id: string;
  category: string;
  kind: string;
  amount: string;
  available_change: string;
  reserved_change: string;
  available_after: string;
  reserved_after: string;
  payout_id: string | null;
  payout_reference: string | null;
  batch_reference: string | null;
}

const cents = (decimal: string) => BigInt(decimal.replace('.', ''));

describe('payout account statement', () => {
  let stack: PayoutStack;
  let vendor: PayoutTestVendor;
  let other: PayoutTestVendor;

  beforeAll(async () => {
    stack = await startPayoutStack();
    vendor = await stack.vendor({ fundCents: 1_000_000n, feePerPayoutCents: 250n });
    other = await stack.vendor({ fundCents: 777_700n, feePerPayoutCents: 100n });
  }, 60_000);
  afterAll(async () => stack?.close());

  const api = () => stack.gateway.http();
  const get = (path: string, token = vendor.token) => api().get(path).set(bearer(token));
  const account = async (token = vendor.token) => {
    const { available, reserved } = (await get('/api/v1/account', token).expect(200)).body.data as { available: string; reserved: string };
    return { available, reserved };
  };
  const payoutStatus = (reference: string, status: string, token = vendor.token) =>
    eventually(async () => {
      const response = await get(`/api/v1/payouts/${encodeURIComponent(reference)}`, token).expect(200);
      expect(response.body.data.status).toBe(status);
      return response.body.data;
    }, 30_000, 200);

  /** Every line of the statement, page by page, following next_cursor. */
  async function allLines(query: string, token = vendor.token): Promise<{ lines: Line[]; pages: number }> {
    const lines: Line[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const path: string = `/api/v1/statement?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const response = await get(path, token).expect(200);
      expect(response.body.success).toBe(true);
      lines.push(...response.body.data.items);
      cursor = response.body.data.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 1_000);
    return { lines, pages };
  }

  /** An adjust_credit entry as a correction writes it: from a reconciliation exception, with its reason. */
  async function adjustCredit(vendorId: string, amountCents: bigint): Promise<void> {
    const ledger = stack.gateway.app.get(PayoutLedgerService);
    await stack.dataSource.transaction(async (manager) => {
      const [exception] = await manager.query(
        `INSERT INTO reconciliation_exceptions (domain, kind, dedupe_key, vendor_id) VALUES ('payout', 'unknown_line', $1, $2) RETURNING id`,
        [`statement-e2e-${randomUUID()}`, vendorId],
      );
      await ledger.correct(manager, { kind: 'adjust_credit', vendorId, cents: amountCents, payoutId: null, reason: 'fee refund agreed with the vendor', exceptionId: exception.id, proposalId: null, approvedBy: 'finance@example.com' });
    });
  }

  it('adds up to the account balance at every line and in the summary, after funding, payouts, a failed batch item, a reversal and an adjustment', async () => {
    // The other vendor moves money too; none of it may show in our statement.
    const theirs = cashPayout('55', { amount: '100.00' });
    await api().post('/api/v1/payouts').set(bearer(other.token)).send(theirs).expect(200);

    const paid = cashPayout('55', { amount: '200.00' });
    await api().post('/api/v1/payouts').set(bearer(vendor.token)).send(paid).expect(200);
    const rejected = cashPayout('01', { amount: '50.00' });
    await api().post('/api/v1/payouts').set(bearer(vendor.token)).send(rejected).expect(422);
    const reversed = cashPayout('03', { amount: '70.00' });
    await api().post('/api/v1/payouts').set(bearer(vendor.token)).send(reversed).expect(200);
    const batchReference = uniqueReference('stmt-batch');
    const items = [cashPayout('55', { amount: '30.00' }), cashPayout('01', { amount: '40.00' }), cashPayout('55', { amount: '60.00' })];
    await api().post('/api/v1/batches').set(bearer(vendor.token)).send({ reference: batchReference, payouts: items }).expect(202);
    await eventually(async () => {
      const batch = (await get(`/api/v1/batches/${batchReference}`).expect(200)).body.data;
      expect(batch.status).toBe('completed_with_failures');
    }, 30_000, 200);
    await payoutStatus(reversed.reference, 'reversed');
    await adjustCredit(vendor.vendor.id, 1_234n);

    const { lines, pages } = await allLines('order=asc&per_page=3');
    expect(pages).toBeGreaterThan(3);
    const balance = await account();

    // Every line: the balances after it are the ones before it plus its changes.
    let available = 0n;
    let reserved = 0n;
    for (const line of lines) {
      available += cents(line.available_change);
      reserved += cents(line.reserved_change);
      expect({ id: line.id, available: cents(line.available_after), reserved: cents(line.reserved_after) }).toEqual({ id: line.id, available, reserved });
      const magnitude = [cents(line.available_change), cents(line.reserved_change)].map((value) => (value < 0n ? -value : value)).reduce((a, b) => (a > b ? a : b));
      expect(cents(line.amount)).toBe(magnitude);
    }
    expect({ available: lines.at(-1)!.available_after, reserved: lines.at(-1)!.reserved_after }).toEqual(balance);

    // Every category, and every line is ours.
    expect(new Set(lines.map((line) => line.category))).toEqual(new Set(['funding', 'payout_reserved', 'payout_settled', 'fee', 'release', 'reversal', 'adjustment']));
    const ours = new Set([paid, rejected, reversed, ...items].map((payout) => payout.reference));
    expect(lines.filter((line) => line.payout_reference !== null).every((line) => ours.has(line.payout_reference!))).toBe(true);
    expect(lines.some((line) => line.payout_reference === theirs.reference)).toBe(false);
    const entries = (await stack.dataSource.query(`SELECT count(*)::int AS count FROM ledger_entries WHERE vendor_id = $1`, [vendor.vendor.id]))[0].count as number;
    expect(lines.filter((line) => !line.id.endsWith('-fee'))).toHaveLength(entries);

    // The settled payout: amount and fee as two lines, with its reference; batch items name their batch.
    const settled = lines.filter((line) => line.payout_reference === paid.reference && line.kind === 'settle');
    expect(settled.map((line) => [line.category, line.amount, line.reserved_change])).toEqual([['payout_settled', '200.00', '-200.00'], ['fee', '2.50', '-2.50']]);
    expect(lines.filter((line) => line.batch_reference === batchReference).map((line) => line.payout_reference)).toEqual(expect.arrayContaining(items.map((item) => item.reference)));
    expect(lines.find((line) => line.payout_reference === reversed.reference && line.category === 'reversal')).toMatchObject({ amount: '72.50', available_change: '72.50' });
    expect(lines.find((line) => line.category === 'adjustment')).toMatchObject({ kind: 'adjust_credit', amount: '12.34', payout_reference: null });

    // Newest first is the same statement the other way round.
    const newestFirst = (await allLines('per_page=4')).lines;
    expect(newestFirst).toEqual([...lines].reverse());

    // The summary over the same days: closing = opening + categories = the account; totals match the lines.
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Johannesburg' }).format(new Date());
    const summary = (await get(`/api/v1/statement/summary?date_from=${today}&date_to=${today}`).expect(200)).body.data;
    expect(summary.opening).toEqual({ available: '0.00', reserved: '0.00' });
    expect(summary.closing).toEqual(balance);
    for (const total of summary.categories) {
      const ofCategory = lines.filter((line) => line.category === total.category);
      expect({ category: total.category, count: total.count, available: cents(total.available_change), reserved: cents(total.reserved_change) }).toEqual({
        category: total.category,
        count: ofCategory.length,
        available: ofCategory.reduce((sum, line) => sum + cents(line.available_change), 0n),
        reserved: ofCategory.reduce((sum, line) => sum + cents(line.reserved_change), 0n),
      });
    }

    // A range before today is empty and opens and closes at zero; the other vendor sees only its own.
    expect((await get('/api/v1/statement?date_from=2020-01-01&date_to=2020-01-31').expect(200)).body.data).toEqual({ items: [], per_page: 50, next_cursor: null });
    const theirLines = (await allLines('order=asc', other.token)).lines;
    expect(theirLines.some((line) => ours.has(line.payout_reference ?? ''))).toBe(false);
    const last = theirLines.at(-1)!;
    expect({ available: last.available_after, reserved: last.reserved_after }).toEqual(await account(other.token));
    expect(await stack.discrepancies()).toEqual([]);
  }, 120_000);

  it('pages never skip or repeat a line while new movements arrive, in either order', async () => {
    const fresh = await stack.vendor({ fundCents: 10_000n, feePerPayoutCents: 0n });
    const ledger = stack.gateway.app.get(PayoutLedgerService);
    for (let i = 0; i < 9; i++) await ledger.fund(fresh.vendor.id, BigInt(100 + i));
    const before = (await allLines('order=asc&per_page=100', fresh.token)).lines.map((line) => line.id);

    for (const order of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let arrivals = 0;
      do {
        const query: string = `order=${order}&per_page=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
        const page = (await get(`/api/v1/statement?${query}`, fresh.token).expect(200)).body.data;
        seen.push(...page.items.map((line: Line) => line.id));
        cursor = page.next_cursor;
        // A movement arrives between every two page reads (a funding), for the first few pages.
        if (arrivals < 4) {
          arrivals += 1;
          await ledger.fund(fresh.vendor.id, 1_000n);
        }
      } while (cursor !== null);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(expect.arrayContaining(before));
      // Oldest first reaches the new movements too, in order.
      if (order === 'asc') expect(seen.map(Number)).toEqual([...seen.map(Number)].sort((a, b) => a - b));
      else expect(seen.map(Number)).toEqual([...seen.map(Number)].sort((a, b) => b - a));
    }
  }, 60_000);

  it('refuses a malformed cursor, a reversed range and an unknown order in the envelope, and a token without payouts:read', async () => {
    const bad = await get('/api/v1/statement?cursor=not-a-cursor!').expect(422);
    expect(bad.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', errors: { cursor: expect.any(Array) } });
    const reversedRange = await get('/api/v1/statement/summary?date_from=2026-11-24&date_to=2026-11-23').expect(422);
    expect(reversedRange.body.errors).toHaveProperty('date_from');
    expect((await get('/api/v1/statement?order=sideways').expect(422)).body.errors).toHaveProperty('order');
    expect((await get('/api/v1/exports/statement?date_from=2026-02-30').expect(422)).body.errors).toHaveProperty('date_from');
    const writeOnly = (await vendor.issue(['payouts:write'])).token;
    for (const path of ['/api/v1/statement', '/api/v1/statement/summary', '/api/v1/exports/statement']) {
      expect((await get(path, writeOnly).expect(403)).body).toMatchObject({ success: false });
    }
  });

  it('exports 200,000 lines as a stream with flat memory, numbers exact, in the same order and balances as the API', async () => {
    const big = await stack.vendor({ fundCents: 0n, feePerPayoutCents: 0n });
    const rows = 200_000;
    // 200,000 fundings of 0.01 to 2,000.00, written the way the ledger writes them (account and entries agree).
    await stack.dataSource.transaction(async (manager) => {
      await manager.query(`INSERT INTO payout_accounts (vendor_id) VALUES ($1) ON CONFLICT (vendor_id) DO NOTHING`, [big.vendor.id]);
      await manager.query(
        `INSERT INTO ledger_entries (vendor_id, kind, amount_cents, available_delta_cents, reserved_delta_cents)
         SELECT $1, 'fund', 1 + (i % 200000), 1 + (i % 200000), 0 FROM generate_series(0, $2 - 1) AS i`,
        [big.vendor.id, rows],
      );
      await manager.query(`UPDATE payout_accounts SET available_cents = (SELECT SUM(available_delta_cents) FROM ledger_entries WHERE vendor_id = $1) WHERE vendor_id = $1`, [big.vendor.id]);
    });
    const expectedAvailable = (await account(big.token)).available;

    // Count the export's database reads: while the client stops reading, the server must stop too.
    const repository = stack.gateway.app.get(StatementRepository);
    const read = repository.entriesBetween.bind(repository);
    let reads = 0;
    const spy = jest.spyOn(repository, 'entriesBetween').mockImplementation((...args) => {
      reads += 1;
      return read(...args);
    });
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const httpServer = stack.gateway.app.getHttpServer() as http.Server;
    if (!httpServer.listening) await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    const port = (httpServer.address() as { port: number }).port;
    let readsWhilePaused = -1;
    // Read as a stream, keeping only the counters and the first and last lines: the test holds no file either.
    const { status, type, lineCount, header, first, last } = await new Promise<{ status: number; type: string; lineCount: number; header: string; first: string; last: string }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/api/v1/exports/statement', headers: bearer(big.token) }, (response) => {
          let carry = '';
          let lineCount = 0;
          let header = '';
          let first = '';
          let last = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            if (readsWhilePaused === -1) {
              readsWhilePaused = 0;
              response.pause();
              setTimeout(() => {
                readsWhilePaused = reads;
                response.resume();
              }, 1_500);
            }
            const parts = (carry + chunk).split('\r\n');
            carry = parts.pop()!;
            for (const part of parts) {
              if (lineCount === 0) header = part;
              else if (lineCount === 1) first = part;
              last = part;
              lineCount += 1;
            }
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, type: String(response.headers['content-type']), lineCount, header, first, last }));
          response.on('error', reject);
        })
        .on('error', reject);
    });
    clearInterval(sampler);
    spy.mockRestore();
    console.log(
      `statement export of ${rows} lines: peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB, ${((peak - baseline) / 2 ** 20).toFixed(0)} MiB above the ` +
        `${(baseline / 2 ** 20).toFixed(0)} MiB before it; ${readsWhilePaused} of ${reads} batch reads done while the client paused after its first chunk`,
    );

    expect(status).toBe(200);
    expect(type).toContain('text/csv');
    expect(header).toBe('line_id,created_at,category,kind,payout_reference,batch_reference,payout_id,currency,amount,available_change,reserved_change,available_after,reserved_after');
    expect(lineCount).toBe(rows + 1);
    expect(first).toMatch(/^\d+,\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z,funding,fund,,,,ZAR,0\.01,0\.01,0\.00,0\.01,0\.00$/);
    expect(last.split(',').slice(-2)).toEqual([expectedAvailable, '0.00']);
    // Streamed with backpressure: a paused client holds the server to the batches the sockets'
    // buffers absorb (loopback buffers auto-tune to several MB: 2 to 28 batches of about 300 KB
    // were seen here), not the whole range, which a server loading it in memory would read.
    expect(reads).toBe(rows / 2_000 + 1);
    expect(readsWhilePaused).toBeGreaterThan(0);
    expect(readsWhilePaused).toBeLessThan(reads / 2);

    // The first page of the API agrees with the file's first line.
    const [apiFirst] = (await get('/api/v1/statement?order=asc&per_page=1', big.token).expect(200)).body.data.items;
    expect(first.split(',')[0]).toBe(apiFirst.id);
  }, 300_000);
});
