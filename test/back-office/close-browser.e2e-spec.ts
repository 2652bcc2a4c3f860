import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { johannesburgDayOf } from '#common';
import { ReconciliationExceptionsService } from '#reconciliation';
import { SettlementScheduler } from '#settlement';
import { ManualSandboxClock } from '../../apps/provider-sandbox/src/sandbox-clock.js';
import { openBrowser, seriousViolations, type Browser } from '../dashboard/browser.js';
import { cashPayout } from '../payout/payout-requests.js';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { browserSignIn, createStaffUser, type StaffPerson } from '../support/back-office.js';
import { eventually, PAYOUT_SANDBOX_KEY, startPayoutStack, type PayoutStack } from '../support/payout-stack.js';
import { createScratchDatabase } from '../support/scratch-database.js';
import { bearer } from '../support/vendors.js';

/** Set BACK_OFFICE_SCREENSHOTS=docs/back-office to refresh the committed screenshots. */
const SCREENSHOTS = process.env.BACK_OFFICE_SCREENSHOTS;
const YESTERDAY = johannesburgDayOf(new Date(Date.now() - 24 * 60 * 60 * 1000));

/**
 * The Close page in real Chromium, at desktop and phone widths: yesterday's provider-days with
 * what blocks each (a report the provider did not publish by its deadline, a line whose amount
 * the provider disputes), each blocking exception linked; once the report arrives and both
 * exceptions are resolved, the worker's next run closes every day and the page says so. On a
 * database of its own: the schedule it runs asks for every unfetched day it finds.
 */
describe('back-office Close page in Chromium', () => {
  let stack: PayoutStack;
  let backOffice: RunningApp;
  let dropDatabase: (() => Promise<void>) | undefined;
  let base: string;
  let operator: StaffPerson;
  let approver: StaffPerson;
  let browser: Browser;
  let approverBrowser: Browser;
  let page: Page;

  async function audit(name: string): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect({ page: name, width, violations: await seriousViolations(page) }).toEqual({ page: name, width, violations: [] });
      // Nothing wider than the screen at phone width.
      expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      if (SCREENSHOTS) {
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
      }
    }
  }
  const control = (path: string, body: unknown) =>
    fetch(`${stack.sandboxUrl}/__sandbox/settlement/${path}`, { method: 'POST', headers: { 'x-api-key': PAYOUT_SANDBOX_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const yesterday = () => page.locator('section', { has: page.locator('h2', { hasText: YESTERDAY }) });
  const openDay = (provider: string) => yesterday().locator('li', { has: page.locator('strong', { hasText: provider }) });

  beforeAll(async () => {
    const scratch = await createScratchDatabase('close_page');
    dropDatabase = scratch.drop;
    stack = await startPayoutStack({
      sandbox: { clock: new ManualSandboxClock(new Date(`${YESTERDAY}T10:00:00+02:00`)) },
      purchaseReports: true,
      // Due a minute after the day ended: yesterday's reports are overdue whenever this runs.
      config: { DATABASE_URL: scratch.url, SETTLEMENT_REPORT_DEADLINE_MS: '60000' },
    });
    backOffice = await startBackOffice({ config: { DATABASE_URL: scratch.url }, listen: true });
    base = backOffice.url!.replace('127.0.0.1', 'localhost');
    operator = await createStaffUser(backOffice.app, 'operator');
    approver = await createStaffUser(backOffice.app, 'approver');
    browser = await openBrowser();
    approverBrowser = await openBrowser();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await approverBrowser?.close();
    await backOffice?.close();
    await stack?.close();
    await dropDatabase?.();
  });

  it('shows what blocks each day, links the blocking exceptions, walks one through the exception desk under four eyes, and shows the days closed once nothing blocks them', async () => {
    const vendor = await stack.vendor({ fundCents: 100_000n, name: 'Close page vendor' });
    const disputed = (await stack.gateway.http().post('/api/v1/payouts').set(bearer(vendor.token)).send(cashPayout('55')).expect(200)).body.data;
    await eventually(async () => expect((await stack.dataSource.query(`SELECT status FROM payouts WHERE merchant_reference = $1`, [disputed.merchant_reference]))[0].status).toBe('paid'));
    expect((await control(`bank_a_instant_money/lines/${disputed.merchant_reference}`, { amount: '210.00' })).status).toBe(200);
    expect((await control(`rtc_eft/availability/${YESTERDAY}`, { available: false })).status).toBe(200);
    const scheduler = stack.worker.get(SettlementScheduler);
    await scheduler.runOnce();
    const open = (await stack.dataSource.query(`SELECT id, kind, provider FROM reconciliation_exceptions WHERE status = 'open' ORDER BY kind`)) as { id: string; kind: string; provider: string }[];
    expect(open.map((exception) => [exception.kind, exception.provider])).toEqual([
      ['amount_mismatch', 'bank_a_instant_money'],
      ['missing_report', 'rtc_eft'],
    ]);

    await browserSignIn(page, base, operator, '/close');
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Close');
    expect(await page.textContent('main')).toContain('2 provider-days blocked');
    expect(await yesterday().locator('h2').textContent()).toBe(`${YESTERDAY}: 3 of 5 closed`);
    for (const exception of open) {
      const link = openDay(exception.provider).locator(`a[href="/exceptions/${exception.id}"]`);
      expect(await link.textContent()).toContain(exception.kind);
    }
    expect(await openDay('rtc_eft').textContent()).toContain('The report is missing');
    expect(await yesterday().locator('p', { hasText: 'Closed:' }).textContent()).toBe('Closed: bank_b_cardless, dvs, voucher.');
    await audit('close-blocked');

    // The provider publishes the report: its exception is resolved without moving money.
    expect((await control(`rtc_eft/availability/${YESTERDAY}`, { available: true })).status).toBe(200);
    const [mismatch, missing] = open;
    await stack.worker.get(ReconciliationExceptionsService).resolve(missing.id, 'close page e2e', 'the provider published the report');
    await scheduler.runOnce();
    await page.reload();
    expect(await yesterday().locator('h2').textContent()).toBe(`${YESTERDAY}: 4 of 5 closed`);

    // The disputed amount is a person's to settle, from the Close page: claim, note, propose a
    // ledger adjustment; another person approves it; the entry is on the exception's page.
    await Promise.all([page.waitForURL(`${base}/exceptions/${mismatch.id}`), openDay('bank_a_instant_money').locator(`a[href="/exceptions/${mismatch.id}"]`).click()]);
    await Promise.all([page.waitForURL(`${base}/exceptions/${mismatch.id}`), page.click('button:has-text("Claim")')]);
    await expect(page.locator('#owner').textContent()).resolves.toContain(`${operator.email} (you)`);
    await page.fill('#note', 'Bank A charged 210.00 for a 200.00 cash-send; they keep the 10.00 as a fee we pass on');
    await Promise.all([page.waitForURL(`${base}/exceptions/${mismatch.id}`), page.click('button:has-text("Add note")')]);
    expect(await page.locator('ol.notes').textContent()).toContain('they keep the 10.00');
    await page.check('#resolution-ledger_adjustment');
    await page.selectOption('#direction', 'debit');
    await page.fill('#amount', '10.00');
    await page.fill('#reason', 'Bank A charged 10.00 more on this cash-send: passed on to the vendor');
    await Promise.all([page.waitForURL(/\/proposals\//), page.click('button:has-text("Resolve")')]);
    const proposalUrl = page.url();
    expect(await stack.dataSource.query(`SELECT id FROM ledger_entries WHERE exception_id = $1`, [mismatch.id])).toEqual([]);

    const other = approverBrowser.page;
    await browserSignIn(other, base, approver, new URL(proposalUrl).pathname);
    expect(await other.locator('#correction').textContent()).toContain('adjust_debit of ZAR 10.00');
    await other.click('button:has-text("Approve…")');
    // The confirmation step: what the approval does to whose account, and the approver's reason.
    await expect(other.locator('[role=alert]').textContent()).resolves.toMatch(/debit ZAR [0-9.,]+ from the payout account of/);
    await other.fill('#confirm-reason', 'Checked the settlement line and the vendor agreed');
    await other.click('button:has-text("Approve and apply")');
    await expect(other.locator('[role=status]').textContent()).resolves.toContain('Approved and done.');
    expect(await stack.dataSource.query(`SELECT kind, amount_cents::text AS cents, approved_by FROM ledger_entries WHERE exception_id = $1`, [mismatch.id])).toEqual([
      { kind: 'adjust_debit', cents: '1000', approved_by: approver.email },
    ]);
    await page.goto(`${base}/exceptions/${mismatch.id}`);
    expect(await page.locator('main').textContent()).toContain('ZAR -10.00');

    // Nothing blocks the day any more: the next run closes it.
    await scheduler.runOnce();
    await page.goto(`${base}/close`);
    expect(await page.textContent('main')).toContain('0 provider-days blocked');
    expect(await yesterday().locator('h2').textContent()).toBe(`${YESTERDAY}: 5 of 5 closed`);
    expect(await yesterday().locator('li').count()).toBe(0);
    await audit('close-closed');
    // Two sign-ins (each waits for an unused authenticator step) and axe at two widths per page.
  }, 240_000);
});
