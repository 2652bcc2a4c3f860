import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { VendorService } from '#auth';
import { PayoutLedgerService } from '#payout';
import { ReconciliationExceptionsService } from '#reconciliation';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { browserSignIn, createStaffUser, type StaffPerson } from '../support/back-office.js';
import { openBrowser, seriousViolations, type Browser } from '../dashboard/browser.js';

/** Set BACK_OFFICE_SCREENSHOTS=docs/back-office to refresh the committed screenshots (each page at 1280 and 390 px wide). */
const SCREENSHOTS = process.env.BACK_OFFICE_SCREENSHOTS;

/**
 * The exceptions queue in real Chromium, two staff members in two browsers: an operator finds
 * the exception in the queue (oldest first, with its vendor and what the provider said), opens
 * its evidence, claims it, adds a note and proposes a ledger adjustment; an approver sees the
 * exception, the account's balance and the proposed entry on the proposal and approves it; the
 * entry then shows on the vendor's page and on the exception's page, and the exception is
 * resolved. axe-core checks every page, at both widths.
 */
describe('back-office exceptions queue in Chromium', () => {
  let backOffice: RunningApp;
  let base: string;
  let db: DataSource;
  let vendor: { id: string; name: string };
  let exceptionId: string;
  let operator: StaffPerson;
  let approver: StaffPerson;
  let operatorBrowser: Browser;
  let approverBrowser: Browser;
  let proposalUrl: string;

  async function audit(page: Page, name: string): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect({ page: name, width, violations: await seriousViolations(page) }).toEqual({ page: name, width, violations: [] });
      if (SCREENSHOTS) {
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: `${SCREENSHOTS}/${name}${width === 390 ? '-390' : ''}.png`, fullPage: true });
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  beforeAll(async () => {
    backOffice = await startBackOffice({ config: { STAFF_FOUR_EYES_ABOVE_CENTS: '100000' }, listen: true });
    base = backOffice.url!.replace('127.0.0.1', 'localhost');
    db = backOffice.app.get(DataSource);
    vendor = await backOffice.app.get(VendorService).create(`Chromium exceptions vendor ${Date.now() % 1e6}`);
    await backOffice.app.get(PayoutLedgerService).fund(vendor.id, 100_000n, 'test funding');
    // As the settlement matcher raises it: the provider's report says PAID for a payout we hold as failed.
    ({ id: exceptionId } = await backOffice.app.get(ReconciliationExceptionsService).raiseAndName({
      domain: 'payout',
      kind: 'status_conflict',
      dedupeKey: `test:exceptions-browser:${process.pid}:${Date.now()}`,
      vendorId: vendor.id,
      provider: 'bank_a_instant_money',
      reportDate: '2026-02-11', // a date no settlement suite reports on (they count a date's exceptions)
      details: { provider_status: 'PAID', provider_amount: '150.00', provider_reference: 'BA-77120', merchant_reference: 'M-77120', our_status: 'failed', our_amount: '150.00' },
    }));
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

  it('an operator claims the exception, adds a note and proposes a ledger adjustment', async () => {
    const page = operatorBrowser.page;
    await browserSignIn(page, base, operator, '/');
    await page.click('nav a:has-text("Exceptions")');
    await expect(page.locator('h1').textContent()).resolves.toBe('Exceptions');
    const row = page.locator('tr', { hasText: vendor.name });
    expect(await row.textContent()).toContain('PAID, amount 150.00');
    expect(await row.textContent()).toContain('nobody');
    await audit(page, 'exceptions');

    await row.locator('a:has-text("status_conflict")').click();
    await expect(page.locator('#owner').textContent()).resolves.toBe('nobody');
    await Promise.all([page.waitForURL(`${base}/exceptions/${exceptionId}`), page.click('button:has-text("Claim")')]);
    await expect(page.locator('#owner').textContent()).resolves.toContain(`${operator.email} (you)`);

    await page.fill('#note', 'Called Bank A: they confirm the cash-send was collected on 13 March');
    await Promise.all([page.waitForURL(`${base}/exceptions/${exceptionId}`), page.click('button:has-text("Add note")')]);
    expect(await page.locator('ol.notes').textContent()).toContain('they confirm the cash-send was collected');
    await audit(page, 'exception-claimed');

    await page.check('#resolution-ledger_adjustment');
    await page.selectOption('#direction', 'debit');
    await page.fill('#amount', '150.00');
    await page.fill('#reason', 'Bank A paid the cash-send we released: take it back from the vendor');
    await Promise.all([page.waitForURL(/\/proposals\//), page.click('button:has-text("Resolve")')]);
    proposalUrl = page.url();
    await expect(page.locator('main').textContent()).resolves.toContain('You proposed this: another person must approve it.');
    expect(await page.locator('#correction').textContent()).toContain('available becomes ZAR 850.00');
    await audit(page, 'exception-proposal-own');
    // Nothing moved yet.
    expect(await db.query(`SELECT id FROM ledger_entries WHERE exception_id = $1`, [exceptionId])).toEqual([]);
    // Sign-in waits for an unused authenticator step, and axe runs twice per page.
  }, 120_000);

  it('an approver sees the balance and the entry, approves it, and the entry shows on the vendor and the exception', async () => {
    const page = approverBrowser.page;
    await browserSignIn(page, base, approver, '/proposals');
    await page.locator('tr', { hasText: `debit ${vendor.name}'s payout account ZAR 150.00` }).locator('a').first().click();
    expect(page.url()).toBe(proposalUrl);
    const correction = (await page.locator('#correction').textContent())!;
    expect(correction).toContain('status_conflict');
    expect(correction).toContain('available ZAR 1,000.00');
    expect(correction).toContain('adjust_debit of ZAR 150.00: available becomes ZAR 850.00');
    await audit(page, 'exception-proposal-review');
    await page.click('button:has-text("Approve…")');
    // The confirmation step: what the approval does to whose account, and the approver's reason.
    await expect(page.locator('[role=alert]').textContent()).resolves.toMatch(/debit ZAR [0-9.,]+ from the payout account of/);
    await audit(page, 'exception-approve-confirm');
    await page.fill('#confirm-reason', 'Checked the settlement line and the vendor agreed');
    await page.click('button:has-text("Approve and apply")');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Approved and done.');

    expect(await db.query(`SELECT kind, amount_cents::text AS cents, approved_by FROM ledger_entries WHERE exception_id = $1`, [exceptionId])).toEqual([
      { kind: 'adjust_debit', cents: '15000', approved_by: approver.email },
    ]);

    await page.goto(`${base}/vendors/${vendor.id}`);
    const vendorPage = (await page.locator('main').textContent())!;
    expect(vendorPage).toContain('adjust_debit');
    expect(vendorPage).toContain('ZAR -150.00');
    expect(vendorPage).toContain('Bank A paid the cash-send we released');
    expect(vendorPage).toContain('ZAR 850.00');
    await audit(page, 'exception-vendor-corrections');

    await page.goto(`${base}/exceptions/${exceptionId}`);
    const exceptionPage = (await page.locator('main').textContent())!;
    expect(exceptionPage).toContain('ledger_adjustment');
    expect(exceptionPage).toContain(approver.email);
    expect(exceptionPage).toContain('ZAR -150.00');
    expect(exceptionPage).toContain('exception.resolved');
    await audit(page, 'exception-resolved');
  }, 120_000);
});
