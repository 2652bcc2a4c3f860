import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { VendorService } from '#auth';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { browserSignIn, createStaffUser, type StaffPerson } from '../support/back-office.js';
import { openBrowser, seriousViolations, type Browser } from '../dashboard/browser.js';

/** Set BACK_OFFICE_SCREENSHOTS=docs/back-office to refresh the committed screenshots. */
const SCREENSHOTS = process.env.BACK_OFFICE_SCREENSHOTS;

/**
 * The vendor operations forms in real Chromium: an operator funds a vendor within the four-eyes
 * threshold (credited at once) and above it (a proposal), publishes a pricing version and sets a
 * payout method's fee; an approver, in another browser context, approves the funding; the
 * vendor page then shows every audit record with who proposed and who approved; the operator
 * creates a vendor from the vendors list. axe-core checks every page.
 */
describe('back-office vendor operations in Chromium', () => {
  let backOffice: RunningApp;
  let base: string;
  let db: DataSource;
  let vendor: { id: string; name: string };
  let operator: StaffPerson;
  let approver: StaffPerson;
  let operatorBrowser: Browser;
  let approverBrowser: Browser;
  let proposalPath: string;

  async function audit(page: Page, name: string): Promise<void> {
    expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
    }
  }

  const signInAs = (page: Page, person: StaffPerson, path: string) => browserSignIn(page, base, person, path);

  beforeAll(async () => {
    // One person may credit up to R1 000.00.
    backOffice = await startBackOffice({ config: { STAFF_FOUR_EYES_ABOVE_CENTS: '100000' }, listen: true });
    base = backOffice.url!.replace('127.0.0.1', 'localhost');
    db = backOffice.app.get(DataSource);
    vendor = await backOffice.app.get(VendorService).create('Chromium operations vendor');
    operator = await createStaffUser(backOffice.app, 'operator');
    approver = await createStaffUser(backOffice.app, 'approver');
    operatorBrowser = await openBrowser();
    approverBrowser = await openBrowser();
  }, 120_000);

  afterAll(async () => {
    await operatorBrowser?.close();
    await approverBrowser?.close();
    await backOffice?.close();
  });

  it('an operator funds within the threshold at once and above it as a proposal', async () => {
    const page = operatorBrowser.page;
    await signInAs(page, operator, `/vendors/${vendor.id}`);
    await audit(page, 'vendor-operations');
    await page.fill('#amount', '750.00');
    await page.fill('#fund-reason', 'EFT deposit reference FNB-77310');
    await Promise.all([page.waitForURL(`${base}/vendors/${vendor.id}`), page.click('button:has-text("Fund")')]);
    expect(await page.locator('dl.facts').textContent()).toContain('ZAR 750.00');
    await page.fill('#amount', '2500.00');
    await page.fill('#fund-reason', 'EFT deposit reference FNB-77311');
    await Promise.all([page.waitForURL(/\/proposals\/[0-9a-f-]{36}$/), page.click('button:has-text("Fund")')]);
    proposalPath = new URL(page.url()).pathname;
    await expect(page.locator('main').textContent()).resolves.toContain('You proposed this: another person must approve it.');
    expect(await db.query(`SELECT amount_cents FROM ledger_entries WHERE vendor_id = $1 ORDER BY id`, [vendor.id])).toEqual([{ amount_cents: '75000' }]);
  });

  it('the operator publishes a pricing version and sets a payout method fee', async () => {
    const page = operatorBrowser.page;
    await page.click('nav a:has-text("Pricing")');
    await page.fill('#margin-bps', '325');
    await page.fill('#pricing-reason', 'Quarterly pricing review, ticket PRC-12');
    await Promise.all([page.waitForURL(`${base}/pricing`), page.click('button:has-text("Publish pricing")')]);
    const pricing = (await page.locator('main').textContent())!;
    expect(pricing).toContain('current');
    expect(pricing).toContain('pricing.published');
    await audit(page, 'pricing');
    await page.goto(`${base}/vendors/${vendor.id}`);
    await Promise.all([page.waitForURL(`${base}/vendors/${vendor.id}/payout-methods`), page.click('a:has-text("Payout methods and fees")')]);
    await page.check('#enabled_rtc_eft');
    await page.fill('#fee_rtc_eft', '3.25');
    await page.fill('#methods-reason', 'Vendor contract annex B, EFT fee');
    await Promise.all([page.waitForURL(`${base}/vendors/${vendor.id}/payout-methods`), page.click('button:has-text("Save payout methods")')]);
    expect(await page.inputValue('#fee_rtc_eft')).toBe('3.25');
    expect(await page.isChecked('#enabled_rtc_eft')).toBe(true);
    await audit(page, 'payout-methods');
    expect(await db.query(`SELECT enabled, fee_cents FROM payout_vendor_methods WHERE vendor_id = $1 AND method = 'rtc_eft'`, [vendor.id])).toEqual([{ enabled: true, fee_cents: '325' }]);
  });

  it('an approver in another browser approves the funding; the vendor page shows every record with who approved', async () => {
    const page = approverBrowser.page;
    await signInAs(page, approver, proposalPath);
    await page.click('button:has-text("Approve")');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Approved and done.');
    const operatorPage = operatorBrowser.page;
    await operatorPage.goto(`${base}/vendors/${vendor.id}`);
    expect(await operatorPage.locator('dl.facts').textContent()).toContain('ZAR 3250.00');
    const records = (await operatorPage.locator('main').textContent())!;
    for (const text of ['payout.funded', 'payout.methods_set', approver.email, 'EFT deposit reference FNB-77311', 'Vendor contract annex B, EFT fee']) expect(records).toContain(text);
    await audit(operatorPage, 'vendor-audit');
  });

  it('the operator creates a vendor from the New vendor form on the vendors list', async () => {
    const page = operatorBrowser.page;
    await page.click('nav a:has-text("Vendors")');
    await page.waitForURL(`${base}/vendors`);
    expect(await page.locator('tbody').textContent()).toContain('ZAR 3250.00');
    await page.fill('#vendor-name', 'Karoo Airtime Traders');
    await page.fill('#create-reason', 'Signed reseller contract, ticket OPS-5120');
    await audit(page, 'new-vendor');
    await Promise.all([page.waitForURL(/\/vendors\/[0-9a-f-]{36}$/), page.click('button:has-text("Create vendor")')]);
    const created = new URL(page.url()).pathname.split('/')[2];
    expect(await db.query(`SELECT name, production_released_at FROM vendors WHERE id = $1`, [created])).toEqual([{ name: 'Karoo Airtime Traders', production_released_at: null }]);
  });
});
