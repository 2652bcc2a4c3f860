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
 * The back-office's dangerous actions in Chromium, at desktop (1280 px) and phone (390 px)
 * width: each first says what will happen and to whom and asks a reason, nothing happens until
 * it is confirmed, and the reason lands in the staff audit. A disabled staff account comes back
 * through four eyes. The vendor page says whether purchases are paused and offers the one change
 * that applies. axe-core on every page.
 */
describe.each([1280, 390])('back-office dangerous actions in Chromium at %i px', (width) => {
  let backOffice: RunningApp;
  let base: string;
  let db: DataSource;
  let vendor: { id: string; name: string };
  let admin: StaffPerson;
  let secondAdmin: StaffPerson;
  let operator: StaffPerson;
  let browser: Browser;
  let page: Page;

  async function audit(name: string): Promise<void> {
    expect({ page: name, width, violations: await seriousViolations(page) }).toEqual({ page: name, width, violations: [] });
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}/${name}${width === 1280 ? '' : `-${width}`}.png`, fullPage: true });
    }
  }

  const auditRecords = (action: string, subjectId: string) =>
    db.query(`SELECT actor_staff_id, reason FROM staff_audit_events WHERE action = $1 AND subject_id = $2 ORDER BY id`, [action, subjectId]);

  beforeAll(async () => {
    backOffice = await startBackOffice({ listen: true });
    base = backOffice.url!.replace('127.0.0.1', 'localhost');
    db = backOffice.app.get(DataSource);
    vendor = await backOffice.app.get(VendorService).create(`Safety vendor ${width}`);
    admin = await createStaffUser(backOffice.app, 'admin');
    secondAdmin = await createStaffUser(backOffice.app, 'admin');
    operator = await createStaffUser(backOffice.app, 'operator');
    browser = await openBrowser();
    page = browser.page;
    await page.setViewportSize({ width, height: 900 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await backOffice?.close();
  });

  it('disabling a staff account asks first, says to whom, needs a reason, and can be undone through four eyes', async () => {
    const target = await createStaffUser(backOffice.app, 'support');
    await browserSignIn(page, base, admin, '/staff');
    await page.locator('tr', { hasText: target.email }).locator('button:has-text("Disable")').click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Disable a staff account');
    const warning = (await page.locator('[role=alert]').textContent())!;
    expect(warning).toContain(target.email);
    expect(warning).toContain('signed out everywhere');
    await audit('staff-disable-confirm');
    // Nothing has happened yet.
    expect((await db.query(`SELECT disabled_at FROM staff_users WHERE id = $1`, [target.id]))[0].disabled_at).toBeNull();
    // The reason is required by the page and by the server.
    expect(await page.getAttribute('#confirm-reason', 'required')).not.toBeNull();
    await page.fill('#confirm-reason', 'Left the support team today');
    await Promise.all([page.waitForURL(`${base}/staff`), page.click(`button:has-text("Disable ${target.email}")`)]);
    expect((await db.query(`SELECT disabled_at FROM staff_users WHERE id = $1`, [target.id]))[0].disabled_at).not.toBeNull();
    expect(await auditRecords('staff.disabled', target.id)).toEqual([{ actor_staff_id: admin.id, reason: 'Left the support team today' }]);

    // Enabling again gives access back: a proposal a second admin approves.
    const row = page.locator('tr', { hasText: target.email });
    await row.locator('textarea').fill('Rejoined the support team');
    await Promise.all([page.waitForURL(/\/proposals\/[0-9a-f-]{36}$/), row.locator('button:has-text("Propose enabling")').click()]);
    await expect(page.locator('h1').textContent()).resolves.toBe(`Proposal: Enable the staff account ${target.email} again (support)`);
    await audit('staff-enable-proposal');
    const proposalPath = new URL(page.url()).pathname;
    await Promise.all([page.waitForURL(`${base}/sign-in`), page.click('button:has-text("Sign out")')]);
    await browserSignIn(page, base, secondAdmin, proposalPath);
    await page.click('button:has-text("Approve")');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Approved and done.');
    expect((await db.query(`SELECT disabled_at FROM staff_users WHERE id = $1`, [target.id]))[0].disabled_at).toBeNull();
    await Promise.all([page.waitForURL(`${base}/sign-in`), page.click('button:has-text("Sign out")')]);
  });

  it('resetting an authenticator asks first and records the reason', async () => {
    const target = await createStaffUser(backOffice.app, 'support');
    await browserSignIn(page, base, admin, '/staff');
    await page.locator('tr', { hasText: target.email }).locator('button:has-text("Reset authenticator")').click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Reset an authenticator');
    expect(await page.locator('[role=alert]').textContent()).toContain(target.email);
    await audit('staff-reset-confirm');
    expect(await auditRecords('staff.totp_reset', target.id)).toEqual([]);
    await page.fill('#confirm-reason', 'Lost phone, identity checked on a video call');
    await page.click(`button:has-text("Reset authenticator of ${target.email}")`);
    expect(await page.locator('#setup-link').textContent()).toMatch(/\/setup\?token=/);
    expect(await auditRecords('staff.totp_reset', target.id)).toEqual([{ actor_staff_id: admin.id, reason: 'Lost phone, identity checked on a video call' }]);
    await Promise.all([page.waitForURL(`${base}/sign-in`), page.click('button:has-text("Sign out")')]);
  });

  it("shows whether the vendor's purchases are paused, and the control offers the change that applies", async () => {
    await browserSignIn(page, base, operator, `/vendors/${vendor.id}`);
    expect(await page.locator('#purchases-state').textContent()).toContain('Running');
    expect(await page.locator('button:has-text("Pause purchases")').count()).toBe(1);
    expect(await page.locator('button:has-text("Resume purchases")').count()).toBe(0);
    await page.fill('#pause-reason', 'Vendor reported a compromised till');
    await Promise.all([page.waitForURL(`${base}/vendors/${vendor.id}`), page.click('button:has-text("Pause purchases")')]);
    expect(await page.locator('#purchases-state').textContent()).toContain('Paused');
    expect(await page.locator('button:has-text("Resume purchases")').count()).toBe(1);
    await audit('vendor-paused');
    await page.fill('#pause-reason', 'Till replaced');
    await Promise.all([page.waitForURL(`${base}/vendors/${vendor.id}`), page.click('button:has-text("Resume purchases")')]);
    expect(await page.locator('#purchases-state').textContent()).toContain('Running');
  });

  it('switching an ability off and withdrawing products say what the vendor loses, and wait for the confirmation', async () => {
    await page.goto(`${base}/vendors/${vendor.id}`);
    await page.uncheck('input[name=abilities][value="payouts:write"]');
    await page.fill('#abilities-reason', 'Vendor asked to stop payouts while they audit');
    await page.click('button:has-text("Save abilities")');
    await expect(page.locator('h1').textContent()).resolves.toBe('Switch abilities off');
    expect(await page.locator('[role=alert]').textContent()).toContain(`Switch off payouts:write for ${vendor.name}`);
    expect(await page.inputValue('#confirm-reason')).toBe('Vendor asked to stop payouts while they audit');
    await audit('abilities-confirm');
    const abilities = async () => (await db.query(`SELECT enabled_abilities FROM vendors WHERE id = $1`, [vendor.id]))[0].enabled_abilities as string[];
    expect(await abilities()).toContain('payouts:write');
    await Promise.all([page.waitForURL(`${base}/vendors/${vendor.id}`), page.click(`button:has-text("Switch off for ${vendor.name}")`)]);
    expect(await abilities()).not.toContain('payouts:write');

    await page.fill('#products-ids', 'all');
    await page.selectOption('#products-enable', 'false');
    await page.fill('#products-reason', 'Contract ends this month');
    await page.click('button:has-text("Change products")');
    await expect(page.locator('h1').textContent()).resolves.toBe('Withdraw products');
    expect(await page.locator('[role=alert]').textContent()).toContain(`Withdraw every product from ${vendor.name}`);
    await audit('products-confirm');
    // Cancel is a link back: nothing was withdrawn.
    await Promise.all([page.waitForURL(`${base}/vendors/${vendor.id}`), page.click('a:has-text("Cancel")')]);
    expect(await db.query(`SELECT 1 FROM staff_audit_events WHERE subject_id = $1 AND action LIKE 'products.%'`, [vendor.id])).toEqual([]);
  });

  it('publishing pricing says it changes every vendor’s prices before it does', async () => {
    await page.goto(`${base}/pricing`);
    const versions = async () => Number((await db.query(`SELECT count(*)::int AS n FROM purchase_pricing_versions`))[0].n);
    const before = await versions();
    await page.fill('#margin-bps', '250');
    await page.fill('#pricing-reason', 'Quarterly review');
    await page.click('button:has-text("Publish pricing")');
    await expect(page.locator('h1').textContent()).resolves.toBe('Publish pricing');
    expect(await page.locator('[role=alert]').textContent()).toContain('every vendor');
    await audit('pricing-confirm');
    expect(await versions()).toBe(before);
    await page.click('a:has-text("Cancel")');
    expect(await versions()).toBe(before);
    await Promise.all([page.waitForURL(`${base}/sign-in`), page.click('button:has-text("Sign out")')]);
  });
});
