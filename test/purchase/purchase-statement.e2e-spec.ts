import { bearer, PRODUCTS, type PurchaseStack, usePurchaseStack } from '../support/purchase-stack.js';
import type { TestVendor } from '../support/vendors.js';
import { mobile, purchase, settle } from './purchase-helpers.js';

interface Row {
  period: string;
  product_id: number;
  product_name: string;
  operator_name: string;
  completed_count: number;
  completed_gross_minor: number;
  reversed_count: number;
  reversed_gross_minor: number;
  net_minor: number;
}

describe('purchase statement', () => {
  let stack: PurchaseStack;
  let vendor: TestVendor;
  usePurchaseStack((suite) => ({ stack, vendor } = suite));

  const get = (path: string, token = vendor.token) => stack.gateway.http().get(`/api/v1${path}`).set(bearer(token));

  async function allRows(query: string, token = vendor.token): Promise<Row[]> {
    const rows: Row[] = [];
    for (let page = 1; ; page++) {
      const data = (await get(`/reports/statement?${query}&page=${page}&per_page=1`, token).expect(200)).body.data;
      rows.push(...data.items);
      if (page >= data.last_page) return rows;
    }
  }

  it('splits the summary by day, month, product and operator, and adds up to it', async () => {
    const reporter = await stack.vendor({ name: 'Statement vendor' });
    const sold = [
      await purchase(stack, reporter, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234550') }),
      await purchase(stack, reporter, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234551') }),
      await purchase(stack, reporter, { product_id: PRODUCTS.pin, ...mobile('27821234504') }),
      await purchase(stack, reporter, { product_id: PRODUCTS.fixedAirtime, ...mobile('27821234501') }),
    ];
    await Promise.all([
      settle(stack, reporter, sold[0].transaction.id, ['completed']),
      settle(stack, reporter, sold[1].transaction.id, ['completed']),
      settle(stack, reporter, sold[2].transaction.id, ['reversed']),
      settle(stack, reporter, sold[3].transaction.id, ['failed']),
    ]);
    // An other vendor's sale never shows.
    const other = await stack.vendor({ name: 'Other statement vendor' });
    const theirs = await purchase(stack, other, { product_id: PRODUCTS.pin, ...mobile('27821234552') });
    await settle(stack, other, theirs.transaction.id, ['completed']);

    const [{ first_day: from, last_day: to }] = await stack.db.query(
      `SELECT to_char(min(created_at) AT TIME ZONE 'Africa/Johannesburg', 'YYYY-MM-DD') AS first_day,
              to_char(now() AT TIME ZONE 'Africa/Johannesburg', 'YYYY-MM-DD') AS last_day
         FROM purchase_transactions WHERE vendor_id = $1`,
      [reporter.vendor.id],
    );
    const summary = (await get(`/reports/summary?date_from=${from}&date_to=${to}`, reporter.token).expect(200)).body.data;
    for (const period of ['day', 'month']) {
      const rows = await allRows(`period=${period}&date_from=${from}&date_to=${to}`, reporter.token);
      const sum = (field: keyof Row) => rows.reduce((total, row) => total + (row[field] as number), 0);
      expect({ completed_count: sum('completed_count'), completed_gross_minor: sum('completed_gross_minor'), reversed_count: sum('reversed_count'), reversed_gross_minor: sum('reversed_gross_minor'), net_minor: sum('net_minor') }).toEqual({
        completed_count: summary.completed_count,
        completed_gross_minor: summary.completed_gross_minor,
        reversed_count: summary.reversed_count,
        reversed_gross_minor: summary.reversed_gross_minor,
        net_minor: summary.net_minor,
      });
      expect(summary.completed_count).toBe(3);
      expect(new Set(rows.map((row) => row.product_id))).toEqual(new Set([PRODUCTS.fixedAirtime, PRODUCTS.pin]));
      const pin = rows.filter((row) => row.product_id === PRODUCTS.pin);
      expect(pin.reduce((total, row) => total + row.reversed_count, 0)).toBe(1);
      expect(pin.reduce((total, row) => total + row.net_minor, 0)).toBe(0);
      expect(rows.every((row) => row.product_name.length > 0 && row.operator_name.length > 0)).toBe(true);
      expect(rows.every((row) => (period === 'day' ? /^\d{4}-\d\d-\d\d$/ : /^\d{4}-\d\d$/).test(row.period))).toBe(true);
    }
    expect((await get('/reports/statement?date_to=2020-01-01', reporter.token).expect(200)).body.data).toEqual({ items: [], page: 1, total: 0, last_page: 1 });
    expect((await get('/reports/statement?period=week', reporter.token).expect(422)).body).toMatchObject({ success: false });
    expect((await get('/reports/statement?date_from=2026-11-02&date_to=2026-11-01', reporter.token).expect(422)).body).toMatchObject({ success: false });
    const withoutReports = await reporter.issue(['transactions:read']);
    await get('/reports/statement', withoutReports.token).expect(403);
  }, 90_000);

  it('exports purchases as CSV: the vendor\'s only, exact charges, and a reference that starts like a formula neutralised', async () => {
    const exporter = await stack.vendor({ name: 'Export vendor' });
    const quote = (await stack.gateway.http().post('/api/v1/quotes').set(bearer(exporter.token)).send({ product_id: PRODUCTS.fixedAirtime, ...mobile('27821234553') }).expect(201)).body.data;
    const reference = `-1.5-${Date.now()}`;
    const bought = (await stack.gateway.http().post('/api/v1/transactions').set(bearer(exporter.token)).set('Idempotency-Key', `key-${reference}`).send({ quote_id: quote.id, reference }).expect(202)).body.data;
    await settle(stack, exporter, bought.id, ['completed']);
    const plain = await purchase(stack, exporter, { product_id: PRODUCTS.pin, ...mobile('27821234554') });
    await settle(stack, exporter, plain.transaction.id, ['completed']);

    const response = await get('/exports/purchases', exporter.token).expect(200);
    expect(response.headers['content-type']).toContain('text/csv');
    const lines = response.text.split('\r\n').filter((line) => line.length > 0);
    expect(lines[0]).toBe('transaction_id,reference,status,product_id,product_name,operator_name,currency,charge,created_at,completed_at,reversed_at');
    expect(lines).toHaveLength(3);
    const formula = lines.find((line) => line.startsWith(bought.id))!;
    // The leading minus would start a formula in a spreadsheet: the cell is text, quoted, with an apostrophe.
    expect(formula.split(',')[1]).toBe(`"'${reference}"`);
    const charge = (quote.charge_minor / 100).toFixed(2);
    expect(formula.split(',').slice(6, 8)).toEqual(['ZAR', charge]);
    expect(formula).toMatch(/,\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z,\d{4}-\d\d-\d\dT[^,]+Z,$/);
    expect(lines.some((line) => line.startsWith(plain.transaction.id))).toBe(true);
    // Another vendor's export does not hold these purchases; a token without transactions:read gets none.
    expect((await get('/exports/purchases').expect(200)).text).not.toContain(bought.id);
    await get('/exports/purchases', (await exporter.issue(['reports:read'])).token).expect(403);
    expect((await get('/exports/purchases?date_from=2026-11-02&date_to=2026-11-01', exporter.token).expect(422)).body).toMatchObject({ success: false, message: 'VALIDATION_FAILED' });
  }, 60_000);
});
