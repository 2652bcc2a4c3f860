import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { moneyFromDecimal } from '#web';
import { startVendorDashboard, type RunningApp } from '../support/apps.js';
import { createDashboardUser, type DashboardPerson } from '../support/dashboard.js';
import { bearer } from '../support/vendors.js';
import { eventually, startPayoutStack, type PayoutStack, type PayoutTestVendor } from '../support/payout-stack.js';
import { cashPayout, uniqueReference } from '../payout/payout-requests.js';
import { openBrowser, seriousViolations, type Browser } from './browser.js';
import { parseCsv } from '../../apps/vendor-dashboard/src/web/csv.js';

/** Set DASHBOARD_SCREENSHOTS=docs/dashboard to refresh the committed screenshots. */
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS;

/**
 * The Statement page in Chromium at desktop and phone widths: the summary adds up to the account,
 * the lines show the running balance, the CSV download holds the same lines, and axe-core finds
 * nothing serious. Another vendor's movements never show.
 */
describe('dashboard statement page in Chromium', () => {
  let stack: PayoutStack;
  let dashboard: RunningApp;
  let base: string;
  let vendor: PayoutTestVendor;
  let owner: DashboardPerson;
  let browser: Browser;
  let page: Page;
  const batchReference = uniqueReference('stmt-page');
  const paid = cashPayout('55', { amount: '150.00' });

  beforeAll(async () => {
    stack = await startPayoutStack();
    dashboard = await startVendorDashboard({ config: { DASHBOARD_PUBLIC_URL: 'http://localhost:3200' }, listen: true });
    base = dashboard.url!.replace('127.0.0.1', 'localhost');
    vendor = await stack.vendor({ name: 'Statement Vendor', fundCents: 500_000n, feePerPayoutCents: 500n });
    const other = await stack.vendor({ name: 'Someone else', fundCents: 123_400n });
    await stack.gateway.http().post('/api/v1/payouts').set(bearer(other.token)).send(cashPayout('55', { reference: 'not-yours-1' })).expect(200);
    await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(paid).expect(200);
    await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout('01', { amount: '50.00' })).expect(422);
    await stack.gateway
      .http()
      .post('/api/v1/batches')
      .set(bearer(vendor.token))
      .send({ reference: batchReference, payouts: [cashPayout('55', { amount: '20.00' }), cashPayout('01', { amount: '30.00' })] })
      .expect(202);
    await eventually(async () => {
      const batch = (await stack.gateway.http().get(`/api/v1/batches/${batchReference}`).set(bearer(vendor.token)).expect(200)).body.data;
      expect(batch.status).toBe('completed_with_failures');
    }, 30_000, 200);
    owner = await createDashboardUser(dashboard.app, vendor.vendor.id, 'finance');
    browser = await openBrowser();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    await stack?.close();
  });

  async function audit(name: string): Promise<void> {
    expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
    }
  }

  it('shows the summary, the lines with running balances and a download that matches them, at 1280 and 390 px', async () => {
    await page.goto(`${base}/statement`);
    await page.fill('#email', owner.email);
    await page.fill('#password', owner.password);
    await Promise.all([page.waitForURL(`${base}/statement`), page.press('#password', 'Enter')]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Statement');
    await expect(page.locator('nav a[href="/statement"]').count()).resolves.toBeGreaterThan(0);

    const account = (await stack.gateway.http().get('/api/v1/account').set(bearer(vendor.token)).expect(200)).body.data;
    const closing = page.locator('table.summary tr', { hasText: 'Closing balance' });
    await expect(closing.textContent()).resolves.toContain(moneyFromDecimal(account.available));
    const rows = page.locator('tr[data-line]');
    // Funding, 4 payouts reserved, 2 settled with 2 fee lines, 2 released.
    await expect(rows.count()).resolves.toBe(11);
    await expect(rows.first().locator('td').nth(5).textContent()).resolves.toBe(moneyFromDecimal(account.available));
    await expect(page.locator('tr[data-line]', { hasText: paid.reference }).count()).resolves.toBe(3);
    await expect(page.locator('body').textContent()).resolves.not.toContain('not-yours-1');
    await audit('statement-1280');

    // The download holds the same lines, oldest first, with the same running balances.
    const link = page.locator('a[download]');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const text = await (await import('node:fs/promises')).readFile((await download.path())!, 'utf8');
    const [header, ...csvRows] = parseCsv(text);
    expect(header).toEqual(['line_id', 'created_at', 'category', 'kind', 'payout_reference', 'batch_reference', 'payout_id', 'currency', 'amount', 'available_change', 'reserved_change', 'available_after', 'reserved_after']);
    const pageIds = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-line')));
    expect(csvRows.map((row) => row[0])).toEqual([...pageIds].reverse());
    expect(csvRows.at(-1)!.slice(-2)).toEqual([account.available, account.reserved]);
    expect(csvRows.filter((row) => row[5] === batchReference)).toHaveLength(5); // two reserved, one settled with its fee, one released

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await audit('statement-390');
    await page.setViewportSize({ width: 1280, height: 900 });

    // A range before any movement: zero balances, no lines; a reversed range is refused with a message.
    await page.goto(`${base}/statement?from=2020-01-01&to=2020-01-02`);
    await expect(page.locator('table.summary tr', { hasText: 'Closing balance' }).textContent()).resolves.toContain('ZAR 0.00');
    await expect(page.locator('body').textContent()).resolves.toContain('No movements in these days.');
    await page.goto(`${base}/statement?from=2026-11-02&to=2026-11-01`);
    await expect(page.locator('body').textContent()).resolves.toContain('The end date is before the start date.');
    await audit('statement-invalid-range');
  }, 90_000);

  it('finds a payout by its reference, a batch by its reference and a payout by its id, never another vendor\'s', async () => {
    await page.goto(`${base}/search`);
    await page.fill('#q', paid.reference);
    await Promise.all([page.waitForURL(/\/search\?q=/), page.press('#q', 'Enter')]);
    const link = page.locator(`a[href="/payouts/view?reference=${encodeURIComponent(paid.reference)}"]`);
    await expect(link.count()).resolves.toBe(1);
    await audit('search-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await audit('search-390');
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.goto(`${base}/search?q=${encodeURIComponent(batchReference)}`);
    await expect(page.locator(`a[href="/batches/view?reference=${encodeURIComponent(batchReference)}"]`).count()).resolves.toBe(1);
    const id = (await stack.gateway.http().get(`/api/v1/payouts/${encodeURIComponent(paid.reference)}`).set(bearer(vendor.token)).expect(200)).body.data.id;
    await page.goto(`${base}/search?q=${id}`);
    await expect(page.locator('table a', { hasText: paid.reference }).count()).resolves.toBe(1);
    await page.goto(`${base}/search?q=not-yours`);
    await expect(page.locator('[role="status"]').textContent()).resolves.toBe('Nothing matches.');
    await page.goto(`${base}/search?q=${encodeURIComponent('=cmd|x')}`);
    await expect(page.locator('body').textContent()).resolves.toContain('Enter a reference or an id');
  }, 60_000);
});
