import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { johannesburgDayOf } from '#common';
import { maskedRecipientOf, PAYOUT_METHODS, PayoutLedgerService, PayoutMethodsService, storedRecipientOf, type RecipientInput } from '#payout';
import { startVendorDashboard, type RunningApp } from '../support/apps.js';
import { createDashboardUser, type DashboardPerson } from '../support/dashboard.js';
import { eventually, PRODUCTS } from '../support/purchase-stack.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, buy, call, createQuote, dataOf, uniqueKey } from '../support/reliability/requests.js';
import type { TestVendor } from '../support/vendors.js';
import { bankAccount, cashPayout, recipient, rtcPayout, uniqueReference } from '../payout/payout-requests.js';
import { openBrowser, seriousViolations, type Browser } from './browser.js';
import { parseCsv } from '../../apps/vendor-dashboard/src/web/csv.js';

/** Set DASHBOARD_SCREENSHOTS=docs/dashboard to refresh the committed screenshots. */
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS;

/**
 * The purchase, payout and batch lists' filters and downloads in Chromium, against the real
 * gateways, worker and provider sandbox: a download holds exactly the rows the filtered pages
 * show (through the API's own export services), never another vendor's; the payout page shows
 * the recipient masked by the payout domain's rule. Each page at 1280 and 390 px: no sideways
 * scroll, axe-core clean.
 */
describe('dashboard list filters and downloads in Chromium', () => {
  let stack: ReliabilityStack;
  let dashboard: RunningApp;
  let base: string;
  let vendor: TestVendor;
  let other: TestVendor;
  let finance: DashboardPerson;
  let browser: Browser;
  let page: Page;
  const today = johannesburgDayOf(new Date());
  const cashToday = cashPayout('55', { amount: '150.00', recipient: recipient('55', { middle_name: 'Lerato', email: 'thandi.mokoena@example.com' }) });
  const cashEarlier = cashPayout('55', { amount: '80.00' });
  const eftToday = rtcPayout('55', { amount: '310.00' });
  const batchReference = uniqueReference('lists-batch');
  const purchaseReferences = { airtime: uniqueKey('airtime'), pin: uniqueKey('pin') };

  /** POST /api/v1/payouts, which must be accepted; a refusal fails with its answer. */
  async function payout(token: string, body: Record<string, unknown>): Promise<void> {
    const answer = await call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token, body });
    expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 200, body: { success: true } });
  }

  beforeAll(async () => {
    stack = await startReliabilityStack();
    dashboard = await startVendorDashboard({ config: { ...stack.env, DASHBOARD_PUBLIC_URL: 'http://localhost:3200' }, listen: true });
    base = dashboard.url!.replace('127.0.0.1', 'localhost');
    vendor = await stack.purchaseVendor({ name: 'Lists Vendor' });
    other = await stack.purchaseVendor({ name: 'Another vendor' });
    for (const each of [vendor, other]) {
      await stack.payout.app.get(PayoutMethodsService).configure(each.vendor.id, { enable: PAYOUT_METHODS });
      await stack.payout.app.get(PayoutLedgerService).fund(each.vendor.id, 1_000_000n, 'lists browser test funding');
    }
    // Two products bought, so the product filter has something to leave out.
    for (const [product, reference] of [[PRODUCTS.fixedAirtime, purchaseReferences.airtime], [PRODUCTS.pin, purchaseReferences.pin]] as const) {
      const quote = await createQuote(stack.purchase.url, vendor.token, airtimeQuote('55', product));
      expect((await buy(stack.purchase.url, vendor.token, quote.id, uniqueKey('key'), reference)).status).toBe(202);
    }
    for (const body of [cashToday, cashEarlier, eftToday]) await payout(vendor.token, body);
    // Another vendor's cash payout of today: never on this vendor's page or file.
    await payout(other.token, cashPayout('55', { reference: 'not-yours-lists' }));
    // One payout three days back, so the day filter has something to leave out (its money is untouched).
    await stack.sql(`UPDATE payouts SET created_at = created_at - interval '3 days' WHERE reference = $1`, [cashEarlier.reference]);
    const batch = await call(stack.payout.url, {
      method: 'POST',
      path: '/api/v1/batches',
      token: vendor.token,
      body: { reference: batchReference, payouts: [cashPayout('55', { amount: '20.00' }), cashPayout('01', { amount: '30.00' })] },
    });
    expect(batch.status).toBe(202);
    await eventually(
      async () => dataOf(await call(stack.payout.url, { path: `/api/v1/batches/${batchReference}`, token: vendor.token })).status as string,
      (status) => status === 'completed_with_failures',
      30_000,
      200,
    );
    finance = await createDashboardUser(dashboard.app, vendor.vendor.id, 'finance');
    browser = await openBrowser();
    page = browser.page;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    if (stack) await closeCheckingBooks(stack, () => [vendor.vendor.id, other.vendor.id]);
  });

  /** axe-core and the page's width at 1280 and 390 px, a screenshot of each when asked. */
  async function audit(name: string): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const overflow = await page.evaluate(() => {
        const scope = globalThis as unknown as { innerWidth: number; document: { documentElement: { scrollWidth: number } } };
        return scope.document.documentElement.scrollWidth - scope.innerWidth;
      });
      expect({ page: name, width, overflow, violations: await seriousViolations(page) }).toEqual({ page: name, width, overflow: 0, violations: [] });
      if (SCREENSHOTS) {
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  /** Clicks the page's download link and returns the file's rows (header first). */
  async function download(): Promise<string[][]> {
    const [file] = await Promise.all([page.waitForEvent('download'), page.locator('a[download]').click()]);
    return parseCsv(await readFile((await file.path())!, 'utf8'));
  }

  /** The text of column `index` of every row of the page's last table. */
  const column = (index: number) => page.locator('main table').last().locator('tbody tr').evaluateAll((rows, at) => rows.map((row) => row.querySelectorAll('td')[at as number]?.textContent ?? ''), index);

  it('filters payouts by method and day, and the download holds exactly the rows of the page', async () => {
    await page.goto(`${base}/payouts`);
    await page.fill('#email', finance.email);
    await page.fill('#password', finance.password);
    await Promise.all([page.waitForURL(`${base}/payouts`), page.press('#password', 'Enter')]);
    await expect(column(0)).resolves.toEqual(expect.arrayContaining([cashToday.reference, cashEarlier.reference, eftToday.reference]));

    await page.selectOption('#method', 'bank_a_instant_money');
    await page.fill('#from', today);
    await page.fill('#to', today);
    await Promise.all([page.waitForURL(/\/payouts\?/), page.click('form.filters button[type=submit]')]);
    const references = await column(0);
    // Today's cash payouts: the single one and the batch's two items; not the EFT, not the one of three days ago, not another vendor's.
    expect(references).toContain(cashToday.reference);
    expect(references).toHaveLength(3);
    for (const absent of [eftToday.reference, cashEarlier.reference, 'not-yours-lists']) expect(references).not.toContain(absent);
    // The method by its name, not its code.
    const methodName = (await stack.payout.app.get(PayoutMethodsService).listMethodViews(vendor.vendor.id)).find((method) => method.method === 'bank_a_instant_money')!.name;
    await expect(column(2)).resolves.toEqual(references.map(() => methodName));
    await audit('payouts-filtered');

    const [header, ...rows] = await download();
    expect(header).toEqual(['payout_id', 'reference', 'batch_reference', 'status', 'status_reason', 'method', 'currency', 'amount', 'fee', 'merchant_reference', 'provider_reference', 'created_at', 'paid_at']);
    // The page is newest first, the file oldest first: the same payouts.
    expect(rows.map((row) => row[1])).toEqual([...references].reverse());
    expect(new Set(rows.map((row) => row[5]))).toEqual(new Set(['bank_a_instant_money']));
    expect(rows.find((row) => row[1] === cashToday.reference)!.slice(7, 9)).toEqual(['150.00', '0.00']);

    // A start after the end is a message on the page, and the download link goes back to it.
    await page.goto(`${base}/payouts?from=${today}&to=2020-01-01`);
    await expect(page.locator('body').textContent()).resolves.toContain('The end date is before the start date.');
    await expect(page.locator('a[download]').count()).resolves.toBe(0);
  }, 90_000);

  it('shows a payout\'s recipient masked as the payout domain masks it, never the identity number or the full phone', async () => {
    await page.goto(`${base}/payouts/view?reference=${encodeURIComponent(cashToday.reference)}`);
    const masked = maskedRecipientOf(storedRecipientOf(cashToday.recipient as RecipientInput));
    expect(masked).toMatchObject({ name: 'T***** L***** M******', phone: '********555', email: 't*************@example.com' });
    const shown = page.locator('#recipient');
    await expect(shown.textContent()).resolves.toContain(masked.name);
    await expect(shown.textContent()).resolves.toContain(masked.phone);
    await expect(shown.textContent()).resolves.toContain(masked.email!);
    const body = (await page.locator('body').textContent())!;
    for (const secret of [cashToday.recipient.phone, String(cashToday.recipient.id_number), 'Thandi', 'Mokoena', 'thandi.mokoena']) expect(body).not.toContain(secret);
    await audit('payout-recipient');

    await page.goto(`${base}/payouts/view?reference=${encodeURIComponent(eftToday.reference)}`);
    const eft = maskedRecipientOf(storedRecipientOf(eftToday.recipient as RecipientInput)).bank_account!;
    expect(eft.account_number).toBe(`******${bankAccount('55').account_number.slice(-4)}`);
    await expect(page.locator('#recipient').textContent()).resolves.toContain(eft.account_number);
    await expect(page.locator('body').textContent()).resolves.not.toContain(bankAccount('55').account_number);
  }, 60_000);

  it('filters batches by status and downloads them with their items', async () => {
    await page.goto(`${base}/batches?status=completed`);
    await expect(column(0)).resolves.not.toContain(batchReference);
    await page.selectOption('#status', 'completed_with_failures');
    await Promise.all([page.waitForURL(/status=completed_with_failures/), page.click('form.filters button[type=submit]')]);
    await expect(column(0)).resolves.toEqual([batchReference]);
    await audit('batches-filtered');
    const [header, ...rows] = await download();
    expect(header.slice(0, 5)).toEqual(['batch_id', 'batch_reference', 'batch_status', 'batch_created_at', 'item_position']);
    expect(rows.map((row) => [row[1], row[2], row[7]])).toEqual([
      [batchReference, 'completed_with_failures', 'paid'],
      [batchReference, 'completed_with_failures', 'failed'],
    ]);
  }, 60_000);

  it('filters purchases by product, names product and operator, and downloads the same purchases', async () => {
    await page.goto(`${base}/purchases`);
    await expect(column(0)).resolves.toEqual(expect.arrayContaining([purchaseReferences.airtime, purchaseReferences.pin]));
    await page.selectOption('#product', String(PRODUCTS.pin));
    await Promise.all([page.waitForURL(/product=/), page.click('form.filters button[type=submit]')]);
    await expect(column(0)).resolves.toEqual([purchaseReferences.pin]);
    const [productName, operatorName] = [(await column(2))[0], (await column(3))[0]];
    expect(productName).not.toBe(String(PRODUCTS.pin));
    expect(operatorName).toMatch(/Vodacom/);
    await audit('purchases-filtered');
    const [header, ...rows] = await download();
    expect(header).toEqual(['transaction_id', 'reference', 'status', 'product_id', 'product_name', 'operator_name', 'currency', 'charge', 'created_at', 'completed_at', 'reversed_at']);
    expect(rows.map((row) => [row[1], row[3], row[4], row[5]])).toEqual([[purchaseReferences.pin, String(PRODUCTS.pin), productName, operatorName]]);

    // A hand-edited product that is not a number is a message, and its download goes back to the page.
    const refused = await page.goto(`${base}/purchases?product=abc`);
    expect(refused!.status()).toBe(400);
    await expect(page.locator('body').textContent()).resolves.toContain('Choose a listed product.');
    await page.goto(`${base}/purchases/download?product=abc`);
    expect(page.url()).toBe(`${base}/purchases?product=abc`);
  }, 60_000);
});
