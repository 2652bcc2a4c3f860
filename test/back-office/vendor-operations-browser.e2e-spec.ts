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
 * vendor page then shows every audit record with who proposed and who approved, the details
 * readable (amounts in ZAR, no JSON); the operator sets spend limits in ZAR (exact cents, more than two
 * decimals refused); two staff editing payout methods at once cannot overwrite each other's change;
 * the operator creates a vendor from the vendors list. axe-core checks every page.
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

  it('the operator sets spend limits in ZAR: "12.34" is kept as 1234 cents, "1.234" is refused with a visible error', async () => {
    const page = operatorBrowser.page;
    await page.goto(`${base}/vendors/${vendor.id}`);
    expect(await page.locator('#limits-now').textContent()).toContain('No spend limits are set yet.');
    const fill = async (daily: string, max: string) => {
      await page.fill('#daily_cap', daily);
      await page.fill('#transaction_max', max);
      await page.fill('#velocity_count', '5');
      await page.fill('#velocity_window_seconds', '60');
      await page.fill('#limits-reason', 'Vendor onboarding, ticket LIM-12');
    };
    await fill('12.34', '1.234');
    await Promise.all([page.waitForNavigation(), page.click('button:has-text("Set limits")')]);
    const errors = (await page.locator('#form-errors').textContent())!;
    expect(errors).toContain('transaction_max');
    expect(errors).toContain('Enter the per-purchase maximum in ZAR with two decimals (no more), e.g. 1000.00.');
    expect(await db.query(`SELECT 1 FROM purchase_spend_controls WHERE vendor_id = $1 AND daily_cap_cents IS NOT NULL`, [vendor.id])).toEqual([]);
    await audit(page, 'spend-limits-refused');
    await fill('12.34', '10.00');
    await Promise.all([page.waitForURL(`${base}/vendors/${vendor.id}`), page.click('button:has-text("Set limits")')]);
    expect(await db.query(`SELECT daily_cap_cents, transaction_max_cents FROM purchase_spend_controls WHERE vendor_id = $1`, [vendor.id])).toEqual([
      { daily_cap_cents: '1234', transaction_max_cents: '1000' },
    ]);
    expect(await page.locator('#limits-now').textContent()).toBe('In force: daily cap ZAR 12.34, per purchase at most ZAR 10.00, 5 purchases per 60 seconds.');
    expect(await page.inputValue('#daily_cap')).toBe('12.34');
    expect(await page.inputValue('#transaction_max')).toBe('10.00');
    // The audit record's details, readable: the limits before and after, amounts in ZAR.
    const details = (await page.locator('table:has(caption:has-text("Audit trail")) tbody').textContent())!;
    expect(details).toContain('daily cap ZAR 12.34');
    expect(details).toContain('transaction max ZAR 10.00');
    expect(details).not.toMatch(/[{}"]/);
    await audit(page, 'spend-limits');
  });

  it('the operator publishes a pricing version and sets a payout method fee', async () => {
    const page = operatorBrowser.page;
    await page.click('nav a:has-text("Pricing")');
    await page.fill('#margin-bps', '325');
    await page.fill('#pricing-reason', 'Quarterly pricing review, ticket PRC-12');
    await page.click('button:has-text("Publish pricing")');
    // Every vendor's prices change: the second step says so; the reason comes along.
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('every vendor');
    expect(await page.inputValue('#confirm-reason')).toBe('Quarterly pricing review, ticket PRC-12');
    await audit(page, 'pricing-confirm');
    await Promise.all([page.waitForURL(`${base}/pricing`), page.click('button:has-text("Publish for every vendor")')]);
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
    await page.click('button:has-text("Approve…")');
    await page.fill('#confirm-reason', 'Deposit seen on the bank statement');
    await audit(page, 'approve-confirm');
    await page.click('button:has-text("Approve and apply")');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Approved and done.');
    const operatorPage = operatorBrowser.page;
    await operatorPage.goto(`${base}/vendors/${vendor.id}`);
    expect(await operatorPage.locator('dl.facts').textContent()).toContain('ZAR 3,250.00');
    const records = (await operatorPage.locator('main').textContent())!;
    for (const text of ['payout.funded', 'payout.methods_set', approver.email, 'EFT deposit reference FNB-77311', 'Vendor contract annex B, EFT fee']) expect(records).toContain(text);
    const details = (await operatorPage.locator('table:has(caption:has-text("Audit trail")) tbody').textContent())!;
    for (const text of ['amount ZAR 2,500.00', 'amount ZAR 750.00', 'fee ZAR 3.25', 'rtc eft ZAR 3.25']) expect(details).toContain(text);
    expect(details).not.toMatch(/[{}"]/);
    await audit(operatorPage, 'vendor-audit');
  });

  it('two staff editing payout methods at once: a field someone else changed meanwhile is refused, other fields merge', async () => {
    const methodsPath = `${base}/vendors/${vendor.id}/payout-methods`;
    const operatorPage = operatorBrowser.page;
    const approverPage = approverBrowser.page;
    const save = async (page: Page, reason: string) => {
      await page.fill('#methods-reason', reason);
      await Promise.all([page.waitForNavigation(), page.click('button:has-text("Save payout methods")')]);
    };
    const fees = async () =>
      db.query(`SELECT method, fee_cents FROM payout_vendor_methods WHERE vendor_id = $1 AND fee_cents IS NOT NULL ORDER BY method`, [vendor.id]) as Promise<{ method: string; fee_cents: string }[]>;
    await operatorPage.goto(methodsPath);
    await approverPage.goto(methodsPath);
    // The approver saves first: the EFT fee becomes 4.00.
    await approverPage.fill('#fee_rtc_eft', '4.00');
    await save(approverPage, 'Fee renegotiated, annex C');
    expect(await fees()).toEqual([{ method: 'rtc_eft', fee_cents: '400' }]);
    // The operator's page still shows 3.25: changing that same fee is refused and nothing is written.
    await operatorPage.fill('#fee_rtc_eft', '5.00');
    await save(operatorPage, 'Fee from the old annex B');
    expect(await operatorPage.locator('#form-errors').textContent()).toContain('Changed by someone else since you loaded this page: rtc_eft. Nothing was saved. Reload the page');
    expect(await fees()).toEqual([{ method: 'rtc_eft', fee_cents: '400' }]);
    expect(await operatorPage.inputValue('#fee_rtc_eft')).toBe('4.00');
    await audit(operatorPage, 'payout-methods-conflict');
    // Changes to different fields merge: the approver sets another method's fee on a fresh page, the operator (page now stale) changes the EFT fee.
    await approverPage.goto(methodsPath);
    await approverPage.fill('#fee_bank_a_instant_money', '2.00');
    await save(approverPage, 'Instant money fee, annex C');
    await operatorPage.fill('#fee_rtc_eft', '4.50');
    await save(operatorPage, 'EFT fee correction, annex C');
    expect(await operatorPage.locator('#form-errors').count()).toBe(0);
    expect(await fees()).toEqual([
      { method: 'bank_a_instant_money', fee_cents: '200' },
      { method: 'rtc_eft', fee_cents: '450' },
    ]);
    expect(await operatorPage.inputValue('#fee_bank_a_instant_money')).toBe('2.00');
  });

  it('the operator creates a vendor from the New vendor form on the vendors list', async () => {
    const page = operatorBrowser.page;
    await page.click('nav a:has-text("Vendors")');
    await page.waitForURL(`${base}/vendors`);
    expect(await page.locator('tbody').textContent()).toContain('ZAR 3,250.00');
    await page.fill('#vendor-name', 'Karoo Airtime Traders');
    await page.fill('#create-reason', 'Signed reseller contract, ticket OPS-5120');
    await audit(page, 'new-vendor');
    await Promise.all([page.waitForURL(/\/vendors\/[0-9a-f-]{36}$/), page.click('button:has-text("Create vendor")')]);
    const created = new URL(page.url()).pathname.split('/')[2];
    expect(await db.query(`SELECT name, production_released_at FROM vendors WHERE id = $1`, [created])).toEqual([{ name: 'Karoo Airtime Traders', production_released_at: null }]);
  });
});
