import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { johannesburgDayOf } from '#common';
import { ReconciliationExceptionsRepository } from '#reconciliation';
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
  let browser: Browser;
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
    browser = await openBrowser();
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await backOffice?.close();
    await stack?.close();
    await dropDatabase?.();
  });

  it('shows what blocks each day, links the blocking exceptions, and shows the days closed once nothing blocks them', async () => {
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

    // The provider publishes the report, staff resolve both exceptions: the next run closes every day.
    expect((await control(`rtc_eft/availability/${YESTERDAY}`, { available: true })).status).toBe(200);
    for (const exception of open) await stack.worker.get(ReconciliationExceptionsRepository).resolve(exception.id, 'close page e2e', 'dealt with');
    await scheduler.runOnce();
    await page.reload();
    expect(await page.textContent('main')).toContain('0 provider-days blocked');
    expect(await yesterday().locator('h2').textContent()).toBe(`${YESTERDAY}: 5 of 5 closed`);
    expect(await yesterday().locator('li').count()).toBe(0);
    await audit('close-closed');
  });
});
