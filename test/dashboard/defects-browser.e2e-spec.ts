import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { startVendorDashboard, type RunningApp } from '../support/apps.js';
import { createDashboardUser, type DashboardPerson } from '../support/dashboard.js';
import { eventually } from '../support/purchase-stack.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, buy, createQuote, dataOf, uniqueKey } from '../support/reliability/requests.js';
import type { TestVendor } from '../support/vendors.js';
import { openBrowser, seriousViolations, type Browser } from './browser.js';

/** Set DASHBOARD_SCREENSHOTS=docs/dashboard to refresh the committed screenshots. */
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS;

/**
 * Defects found when the dashboard was walked in Chromium, each checked at desktop (1280 px)
 * and phone (390 px) width against the real dashboard, gateways and provider sandbox: a failed
 * purchase delivered nothing, a page past the end says so, reloading after creating a token or
 * an invite creates no second one, and a developer is not offered the abilities their role keeps
 * from them. axe-core on every page.
 */
describe.each([1280, 390])('vendor dashboard defects in Chromium at %i px', (width) => {
  let stack: ReliabilityStack;
  let dashboard: RunningApp;
  let base: string;
  let vendor: TestVendor;
  let owner: DashboardPerson;
  let developer: DashboardPerson;
  let browser: Browser;
  let page: Page;
  let failedPurchaseId: string;

  async function audit(name: string): Promise<void> {
    expect({ page: name, width, violations: await seriousViolations(page) }).toEqual({ page: name, width, violations: [] });
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}/${name}${width === 1280 ? '' : `-${width}`}.png`, fullPage: true, mask: [page.locator('.secret')] });
    }
  }

  async function signInAs(person: DashboardPerson, path: string): Promise<void> {
    await page.goto(`${base}${path}`);
    await page.fill('#email', person.email);
    await page.fill('#password', person.password);
    await Promise.all([page.waitForURL(`${base}${path}`), page.click('button[type=submit]')]);
  }

  const signOut = () => Promise.all([page.waitForURL(`${base}/sign-in`), page.click('button:has-text("Sign out")')]);

  beforeAll(async () => {
    stack = await startReliabilityStack();
    dashboard = await startVendorDashboard({ config: { ...stack.env, DASHBOARD_PUBLIC_URL: 'http://localhost:3200' }, listen: true });
    base = dashboard.url!.replace('127.0.0.1', 'localhost');
    vendor = await stack.purchaseVendor({ name: `Defects vendor ${width}` });
    owner = await createDashboardUser(dashboard.app, vendor.vendor.id, 'owner');
    developer = await createDashboardUser(dashboard.app, vendor.vendor.id, 'developer');
    // Sandbox suffix 01: the operator declines; the purchase fails and nothing is delivered.
    const quote = await createQuote(stack.purchase.url, vendor.token, airtimeQuote('01'));
    failedPurchaseId = dataOf(await buy(stack.purchase.url, vendor.token, quote.id, uniqueKey('key'), uniqueKey('declined'))).id as string;
    await eventually(
      async () => (await stack.sql<{ status: string }>(`SELECT status FROM purchase_transactions WHERE id = $1`, [failedPurchaseId]))[0].status,
      (status) => status === 'failed',
      30_000,
      200,
    );
    browser = await openBrowser();
    page = browser.page;
    await page.setViewportSize({ width, height: 900 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    if (stack) await closeCheckingBooks(stack, () => [vendor.vendor.id]);
  });

  it('does not say a failed purchase delivered its value', async () => {
    await signInAs(owner, `/purchases/${failedPurchaseId}`);
    const details = (await page.locator('dl').first().textContent())!;
    expect(details).toContain('failed');
    expect(details).not.toContain('Value delivered');
    expect(details).toMatch(/Value ordered.*not delivered, the purchase failed/);
    await audit('purchase-failed');
  });

  it('says a page past the end does not exist, instead of "Page 5 of 1"', async () => {
    await page.goto(`${base}/purchases?page=5`);
    const pager = (await page.locator('nav.pager').textContent())!;
    expect(pager).not.toContain('of 1');
    expect(pager).toContain('There is no page 5: the last page is 1.');
    await Promise.all([page.waitForURL(/page=1$/), page.click('a:has-text("Go to page 1")')]);
    await audit('purchases-past-the-end');
  });

  it('shows a new token once and creates no second token when the page is reloaded', async () => {
    await page.goto(`${base}/tokens`);
    const name = `Reload till ${width}`;
    await page.fill('#token-name', name);
    await page.check('input[name="abilities"][value="transactions:read"]');
    await Promise.all([page.waitForURL(`${base}/tokens`), page.click('button:has-text("Create token")')]);
    expect((await page.locator('#token-secret').textContent())!.trim()).toMatch(/^gwt_/);
    await audit('tokens-created');
    await page.reload();
    expect(await page.locator('#token-secret').count()).toBe(0);
    expect(await stack.sql(`SELECT 1 FROM api_tokens WHERE vendor_id = $1 AND name = $2`, [vendor.vendor.id, name])).toHaveLength(1);
  });

  it('shows a new invite link once and creates no second invite when the page is reloaded', async () => {
    await page.goto(`${base}/team`);
    const email = `reload-${width}-${Date.now()}@vendor.example`;
    await page.fill('#invite-email', email);
    await Promise.all([page.waitForURL(`${base}/team`), page.click('button:has-text("Create invite link")')]);
    expect(await page.locator('#invite-link').textContent()).toContain('/invite?token=');
    await page.reload();
    expect(await page.locator('#invite-link').count()).toBe(0);
    expect(await stack.sql(`SELECT 1 FROM dashboard_invites WHERE email = $1`, [email])).toHaveLength(1);
    await audit('team-after-invite');
    await signOut();
  });

  it("offers a developer no token ability their role cannot use on the dashboard, and says why", async () => {
    await signInAs(developer, '/tokens');
    for (const ability of ['fulfilment:read', 'payouts:write', 'payouts:delivery']) {
      const box = page.locator(`input[name="abilities"][value="${ability}"]`);
      expect(await box.isDisabled()).toBe(true);
      const why = (await page.locator(`#${(await box.getAttribute('aria-describedby'))!}`).textContent())!;
      expect(why).toContain('your role (developer) cannot use this on the dashboard');
    }
    expect(await page.locator('input[name="abilities"][value="transactions:write"]').isDisabled()).toBe(false);
    await audit('tokens-developer');
    await signOut();
  });
});
