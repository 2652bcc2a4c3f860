import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { PAYOUT_METHODS, PayoutLedgerService, PayoutMethodsService } from '#payout';
import { StaffAuditLog } from '#staff';
import { openBrowser, seriousViolations, type Browser } from '../dashboard/browser.js';
import { cashPayout } from '../payout/payout-requests.js';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { browserSignIn, createStaffUser, type StaffPerson } from '../support/back-office.js';
import { eventually } from '../support/purchase-stack.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, buy, call, createQuote } from '../support/reliability/requests.js';
import type { TestVendor } from '../support/vendors.js';

/** Set BACK_OFFICE_SCREENSHOTS=docs/back-office to refresh the committed screenshots. */
const SCREENSHOTS = process.env.BACK_OFFICE_SCREENSHOTS;

/**
 * Issue 28 in real Chromium, at 1280 and 390 px (no sideways scroll, axe-core clean): a support
 * agent searches a payout by its reference and opens it, pages through a vendor's purchases and
 * filters them, and filters the audit trail by who and what.
 */
describe('back-office search, vendor records and audit filters in Chromium', () => {
  let stack: ReliabilityStack;
  let backOffice: RunningApp;
  let base: string;
  let vendor: TestVendor;
  let support: StaffPerson;
  let browser: Browser;
  let page: Page;
  const tag = `b${Date.now().toString(36)}${randomUUID().slice(0, 4)}`;
  const payoutReference = `${tag}-cash-7`;

  /** axe-core and the page's width at both widths, then the screenshots (`name.png`, `name-390.png`). */
  async function check(name: string): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect({ page: name, width, violations: await seriousViolations(page) }).toEqual({ page: name, width, violations: [] });
      // Nothing wider than the window: tables scroll inside their own box.
      expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      if (SCREENSHOTS) {
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: `${SCREENSHOTS}/${name}${width === 390 ? '-390' : ''}.png`, fullPage: true });
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  const rows = (caption: string) => page.locator(`table:has(caption:has-text("${caption}")) tbody tr`);

  beforeAll(async () => {
    stack = await startReliabilityStack();
    await stack.startWorker();
    backOffice = await startBackOffice({ config: stack.env, listen: true });
    base = backOffice.url!.replace('127.0.0.1', 'localhost');
    vendor = await stack.purchaseVendor({ name: `Kasi Airtime & Cash ${tag}` });
    await stack.payout.app.get(PayoutMethodsService).configure(vendor.vendor.id, { enable: PAYOUT_METHODS });
    await stack.payout.app.get(PayoutLedgerService).fund(vendor.vendor.id, 12_345_678n, 'browser test funding');
    for (let index = 0; index < 28; index++) {
      const quote = await createQuote(stack.purchase.url, vendor.token, airtimeQuote(index % 7 === 3 ? '01' : '55'));
      expect((await buy(stack.purchase.url, vendor.token, quote.id, `key-${tag}-${index}`, `${tag}-order-${index}`)).status).toBe(202);
    }
    for (const [index, amount] of ['1250.00', '80.00', '340.00'].entries()) {
      const reference = index === 0 ? payoutReference : `${tag}-cash-${index}`;
      expect((await call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: vendor.token, body: cashPayout('55', { reference, amount }) })).status).toBe(200);
    }
    await eventually(
      async () => (await stack.sql<{ n: number }>(`SELECT count(*)::int AS n FROM purchase_transactions WHERE vendor_id = $1 AND status = 'pending'`, [vendor.vendor.id]))[0].n,
      (n) => n === 0,
      60_000,
      200,
    );
    const audit = backOffice.app.get(StaffAuditLog);
    for (let index = 0; index < 6; index++) {
      await audit.record({
        actor: { staffUserId: null, label: `ops:${tag}-desk` },
        action: index % 2 ? 'purchases.paused' : 'limits.set',
        subjectType: 'vendor',
        subjectId: vendor.vendor.id,
        vendorId: vendor.vendor.id,
        reason: `Browser test record ${index}: checked with the vendor's finance team`,
        details: index % 2 ? { before: { paused: false }, after: { paused: true } } : { daily_cap_minor: 2_500_000 + index, transaction_max_minor: 150_000 },
      });
    }
    support = await createStaffUser(backOffice.app, 'support');
    browser = await openBrowser();
    page = browser.page;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await backOffice?.close();
    if (stack) await closeCheckingBooks(stack, () => [vendor.vendor.id]);
  });

  it('searches a payout by reference and opens it', async () => {
    await browserSignIn(page, base, support, '/search');
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Search');
    await page.fill('#q', payoutReference);
    await Promise.all([page.waitForURL(/\/search\?q=/), page.click('form[role=search] button[type=submit]')]);
    expect(await page.locator('#search-count').textContent()).toBe(`1 found for “${payoutReference}”.`);
    expect(await page.locator('main h2').allTextContents()).toEqual(['Payouts (1)']);
    const row = page.locator('table tbody tr', { hasText: payoutReference });
    expect(await row.textContent()).toContain('ZAR 1,250.00');
    expect(await row.textContent()).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} SAST/);
    await check('search-payout');
    const [{ id }] = await stack.sql<{ id: string }>(`SELECT id FROM payouts WHERE vendor_id = $1 AND reference = $2`, [vendor.vendor.id, payoutReference]);
    await Promise.all([page.waitForURL(`${base}/queues/payouts/${id}`), row.locator(`a:has-text("${payoutReference}")`).click()]);
    expect(await page.locator('h1').textContent()).toBe(`Payout ${payoutReference}`);
    expect(await page.locator('dl.facts').textContent()).toContain('ZAR 1,250.00');

    // A vendor by a part of its name, then its page.
    await page.goto(`${base}/search?q=${encodeURIComponent(`airtime & cash ${tag}`)}`);
    expect(await page.locator('main h2').allTextContents()).toEqual(['Vendors (1)']);
    await check('search-vendor');
  });

  it("pages through a vendor's purchases and filters them", async () => {
    await page.goto(`${base}/vendors/${vendor.vendor.id}`);
    await Promise.all([page.waitForURL(`${base}/vendors/${vendor.vendor.id}/purchases`), page.click('#vendor-records a:has-text("Purchases")')]);
    expect(await page.locator('h1').textContent()).toBe(`Kasi Airtime & Cash ${tag}: purchases`);
    expect(await rows('28 purchases').count()).toBe(25);
    expect(await page.locator('nav.pager').textContent()).toContain('Page 1 of 2');
    await check('vendor-purchases');
    await Promise.all([page.waitForURL(/page=2/), page.click('nav.pager a:has-text("Next page")')]);
    expect(await page.locator('nav.pager').textContent()).toContain('Page 2 of 2');
    expect(await rows('28 purchases').count()).toBe(3);
    const shown = new Set([
      ...(await page.locator('tbody td:first-child a').allTextContents()),
    ]);
    await Promise.all([page.waitForURL(/page=1/), page.click('nav.pager a:has-text("Previous page")')]);
    for (const reference of await page.locator('tbody td:first-child a').allTextContents()) shown.add(reference);
    const all = await stack.sql<{ reference: string }>(`SELECT reference FROM purchase_transactions WHERE vendor_id = $1`, [vendor.vendor.id]);
    expect([...shown].sort()).toEqual(all.map((row) => row.reference).sort());

    await page.selectOption('#status', 'failed');
    await Promise.all([page.waitForURL(/status=failed/), page.click('form.filters button:has-text("Filter")')]);
    const failed = await stack.sql<{ reference: string }>(`SELECT reference FROM purchase_transactions WHERE vendor_id = $1 AND status = 'failed'`, [vendor.vendor.id]);
    expect(failed.length).toBe(4);
    expect((await page.locator('tbody td:first-child a').allTextContents()).sort()).toEqual(failed.map((row) => row.reference).sort());
    expect(await page.locator('nav.pager').textContent()).toContain('Page 1 of 1');
    await check('vendor-purchases-failed');

    await Promise.all([page.waitForURL(`${base}/vendors/${vendor.vendor.id}/payouts`), page.click('main a:has-text("Payouts")')]);
    expect(await rows('3 payouts').count()).toBe(3);
    expect(await page.locator('main').textContent()).toContain('ZAR 340.00');
    await check('vendor-payouts');
  });

  it('filters the audit trail by who and what', async () => {
    await page.goto(`${base}/audit`);
    await page.fill('#actor', `${tag}-desk`);
    await page.selectOption('#action', 'purchases.paused');
    await Promise.all([page.waitForURL(/action=purchases.paused/), page.click('form.filters button:has-text("Filter")')]);
    const expected = await stack.sql<{ reason: string }>(`SELECT reason FROM staff_audit_events WHERE actor = $1 AND action = 'purchases.paused' ORDER BY id DESC`, [`ops:${tag}-desk`]);
    expect(expected).toHaveLength(3);
    expect(await page.locator('main').textContent()).toContain('3 records, newest first.');
    const table = page.locator('table:has(caption:has-text("Audit trail")) tbody tr');
    expect(await table.count()).toBe(3);
    for (const [index, { reason }] of expected.entries()) expect(await table.nth(index).textContent()).toContain(reason);
    expect(await table.first().textContent()).toContain(`Kasi Airtime & Cash ${tag}`);
    expect(await page.locator('a[download]').getAttribute('href')).toBe(`/audit/export.csv?actor=${tag}-desk&action=purchases.paused`);
    await check('audit-filtered');
  });
});
