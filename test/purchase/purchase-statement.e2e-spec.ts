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
});
