import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { browserSignIn, createStaffUser, type StaffPerson } from '../support/back-office.js';
import { eventually } from '../support/purchase-stack.js';
import { closeCheckingBooks, startReliabilityStack, type ReliabilityStack } from '../support/reliability/reliability-stack.js';
import { airtimeQuote, buy, call, createQuote, dataOf, uniqueKey } from '../support/reliability/requests.js';
import type { TestVendor } from '../support/vendors.js';
import { cashPayout } from '../payout/payout-requests.js';
import { openBrowser, seriousViolations, type Browser } from '../dashboard/browser.js';

/** Set BACK_OFFICE_SCREENSHOTS=docs/back-office to refresh the committed screenshots. */
const SCREENSHOTS = process.env.BACK_OFFICE_SCREENSHOTS;

/**
 * The review queues in real Chromium: an operator finds a purchase stuck in review (sandbox 05)
 * oldest first, reads its history, proposes "failed" with a reason; an approver finds the
 * proposal and approves it; the purchase is failed and its allowance returned, and the item page
 * shows the decision with who proposed, who approved and why. The payout queue shows a payout in
 * needs_review (sandbox 04). axe-core checks every page; the books are checked at the end.
 */
describe('back-office review queues in Chromium', () => {
  let stack: ReliabilityStack;
  let backOffice: RunningApp;
  let base: string;
  let vendor: TestVendor;
  let payoutVendor: TestVendor;
  let operator: StaffPerson;
  let approver: StaffPerson;
  let browser: Browser;
  let page: Page;
  let purchase: { id: string; reference: string };
  let payoutReference: string;

  async function audit(name: string): Promise<void> {
    expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
    }
  }

  /** axe-core and no sideways scroll at 1280 and 390 px, with a screenshot at each (`name`, `name-390`). */
  async function auditWidths(name: string): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const wide = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
      expect({ page: name, width, scrollWidth: Math.max(wide, width) }).toEqual({ page: name, width, scrollWidth: width });
      expect({ page: name, width, violations: await seriousViolations(page) }).toEqual({ page: name, width, violations: [] });
      if (SCREENSHOTS) {
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: `${SCREENSHOTS}/${name}${width === 390 ? '-390' : ''}.png`, fullPage: true });
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  const signInAs = (person: StaffPerson, path: string) => browserSignIn(page, base, person, path);

  beforeAll(async () => {
    stack = await startReliabilityStack({ config: { PAYOUT_REVIEW_POLL_INTERVAL_MS: '3600000' } });
    await stack.startWorker();
    backOffice = await startBackOffice({ config: stack.env, listen: true });
    base = backOffice.url!.replace('127.0.0.1', 'localhost');
    vendor = await stack.purchaseVendor({ name: 'Chromium review vendor' });
    payoutVendor = await stack.payoutVendor({ name: 'Chromium payout vendor', fundCents: 500_000n });
    operator = await createStaffUser(backOffice.app, 'operator');
    approver = await createStaffUser(backOffice.app, 'approver');

    const quote = await createQuote(stack.purchase.url, vendor.token, airtimeQuote('05'));
    const reference = uniqueKey('stuck');
    const bought = await buy(stack.purchase.url, vendor.token, quote.id, uniqueKey('key'), reference);
    purchase = { id: dataOf(bought).id as string, reference };
    const request = cashPayout('04', { amount: '150.00' });
    payoutReference = request.reference;
    expect((await call(stack.payout.url, { method: 'POST', path: '/api/v1/payouts', token: payoutVendor.token, body: request })).status).toBe(200);
    await eventually(
      async () => (await stack.sql<{ n: number }>(`SELECT count(*)::int AS n FROM purchase_transactions WHERE id = $1 AND status = 'review'`, [purchase.id]))[0].n + (await stack.sql<{ n: number }>(`SELECT count(*)::int AS n FROM payouts WHERE reference = $1 AND status = 'needs_review'`, [payoutReference]))[0].n,
      (n) => n === 2,
      30_000,
      200,
    );
    browser = await openBrowser();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await backOffice?.close();
    await closeCheckingBooks(stack, () => [vendor.vendor.id, payoutVendor.vendor.id]);
  });

  it('an operator finds the stuck purchase in the queue and proposes failing it, with a reason', async () => {
    await signInAs(operator, '/');
    await audit('overview');
    await page.click('nav a:has-text("Purchases in review")');
    await expect(page.locator('h1').textContent()).resolves.toBe('Purchases in review');
    expect(await page.locator('tbody').textContent()).toContain('Chromium review vendor');
    await audit('queue-purchases');
    await page.click(`a:has-text("${purchase.reference}")`);
    expect(await page.locator('main').textContent()).toContain('pending → review');
    // The operator takes it and writes down what they did: the owner and the note are on the page.
    const itemUrl = `${base}/queues/purchases/${purchase.id}`;
    await Promise.all([page.waitForURL(itemUrl), page.click('form[action$="/claim"] button')]);
    expect(await page.locator('#owner').textContent()).toContain(`${operator.email} (you), since`);
    await page.fill('#note', 'Provider support line busy; ticket 8812 opened with them');
    await Promise.all([page.waitForURL(itemUrl), page.click('button:has-text("Add note")')]);
    expect(await page.locator('ol.notes').textContent()).toContain(`${operator.email}`);
    expect(await page.locator('ol.notes').textContent()).toContain('ticket 8812 opened with them');
    await auditWidths('queue-purchase-claimed');
    await page.check('#outcome-failed');
    // The form says who reads what: the message goes to the vendor, the note stays with staff.
    expect(await page.locator('#vendor-message-hint').textContent()).toContain('The vendor reads this');
    expect(await page.locator('label[for=reason]').textContent()).toContain('never shown to the vendor');
    await page.fill('#vendor-message', 'Our provider confirmed the order was never processed; nothing was charged.');
    await page.fill('#reason', 'Provider support confirmed it never processed the order');
    await Promise.all([page.waitForURL(/\/proposals\//), page.click('button:has-text("Propose resolution")')]);
    await expect(page.locator('main').textContent()).resolves.toContain('You proposed this: another person must approve it.');
    await page.click('nav a:has-text("Payouts in review")');
    expect(await page.locator('tbody').textContent()).toContain(payoutReference);
    await audit('queue-payouts');
    await page.click(`a:has-text("${payoutReference}")`);
    await audit('queue-payout-item');
    await Promise.all([page.waitForURL(`${base}/sign-in`), page.click('button:has-text("Sign out")')]);
  });

  it('an approver approves it: the purchase fails, its allowance comes back, and the item shows who decided what and why', async () => {
    await signInAs(approver, '/queues/purchases');
    // The queue says who owns each item; the item says it is someone else's.
    expect(await page.locator('tr', { hasText: purchase.reference }).textContent()).toContain(operator.email);
    await auditWidths('queue-purchases-owner');
    await page.click(`a:has-text("${purchase.reference}")`);
    expect(await page.locator('main').textContent()).toContain(`${operator.email} owns it: only they resolve it, unless it is reassigned.`);
    await auditWidths('queue-purchase-owned');
    await page.goto(`${base}/proposals`);
    await audit('proposals-money');
    await page.locator('tr', { hasText: `Resolve purchase ${purchase.reference} as failed` }).locator('a').first().click();
    // Titled by what it proposes, with the current and new values and the provider trail.
    await expect(page.locator('h1').textContent()).resolves.toBe(`Proposal: Resolve purchase ${purchase.reference} as failed`);
    const evidence = (await page.locator('main').textContent())!;
    expect(evidence).toContain('Now and after approval');
    expect(evidence).toContain('RESOLVED_BY_STAFF');
    expect(evidence).toContain('Provider trail');
    await audit('proposal-evidence');
    await page.click('button:has-text("Approve…")');
    // The confirmation step: what will happen, and the approver's reason.
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain(`Resolve purchase ${purchase.reference} as failed`);
    await page.fill('#confirm-reason', 'Provider support confirmed by phone: never processed');
    await page.click('button:has-text("Approve and apply")');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Approved and done.');
    const [row] = await stack.sql<{ status: string; allowance_returned_at: Date | null }>(`SELECT status, allowance_returned_at FROM purchase_transactions WHERE id = $1`, [purchase.id]);
    expect(row.status).toBe('failed');
    expect(row.allowance_returned_at).not.toBeNull();
    await page.goto(`${base}/queues/purchases/${purchase.id}`);
    const text = (await page.locator('main').textContent())!;
    expect(text).toContain('review → failed');
    expect(text).toContain('purchase.resolved');
    expect(text).toContain(approver.email);
    expect(text).toContain('Provider support confirmed it never processed the order');
    // Resolved: it no longer counts a wait.
    expect(text).toContain('no longer waiting: failed');
    expect(text).not.toMatch(/Waiting since[^A-Za-z]*\d{4}.*\(\d+ ?(s|min|h)/);
    // What the vendor reads: their message and the staff code, never the internal note.
    const [failed] = await stack.sql<{ error_code: string }>(`SELECT error_code FROM purchase_transactions WHERE id = $1`, [purchase.id]);
    expect(failed.error_code).toBe('RESOLVED_BY_STAFF');
    const reasons = (await stack.sql<{ reason: string }>(`SELECT reason FROM purchase_transaction_events WHERE transaction_id = $1 ORDER BY id`, [purchase.id])).map((event) => event.reason);
    expect(reasons.at(-1)).toBe('resolved by staff: Our provider confirmed the order was never processed; nothing was charged.');
    expect(reasons.join(' ')).not.toContain('Provider support confirmed');
    await audit('queue-purchase-resolved');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await audit('queue-purchase-resolved-390');
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
