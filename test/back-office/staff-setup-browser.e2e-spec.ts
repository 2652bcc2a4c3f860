import { mkdirSync } from 'node:fs';
import { generate } from 'otplib';
import type { Page } from 'playwright-core';
import { opsActor, StaffAccounts } from '#staff';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { openBrowser, seriousViolations, type Browser } from '../dashboard/browser.js';

/** Set BACK_OFFICE_SCREENSHOTS=docs/back-office to refresh the committed screenshots. */
const SCREENSHOTS = process.env.BACK_OFFICE_SCREENSHOTS;

/**
 * A new staff member opens the one-time setup link in Chromium: the page shows a QR code of the
 * authenticator link (drawn on the server, an SVG the browser decodes) beside the key; scanning
 * it, here reading the key, gives the codes that finish the setup. axe-core at 390 and 1280 px.
 */
describe('back-office staff setup in Chromium', () => {
  let backOffice: RunningApp;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    backOffice = await startBackOffice({ listen: true });
    base = backOffice.url!.replace('127.0.0.1', 'localhost');
    browser = await openBrowser();
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await backOffice?.close();
  });

  it('shows a QR code for the authenticator, and its key finishes the setup', async () => {
    const email = `setup-${process.pid}-${Date.now() % 1e8}@staff.example`;
    const link = await backOffice.app.get(StaffAccounts).create(email, 'support', opsActor('test-setup'));
    await page.goto(`${base}/setup?token=${link.secret}`);
    const qr = page.locator('img#totp-qr');
    const source = (await qr.getAttribute('src'))!;
    expect(source).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(source.split(',')[1], 'base64').toString('utf8')).toMatch(/^<svg[\s\S]*<path[\s\S]*<\/svg>\s*$/);
    expect(await qr.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const scrollWidth = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
      expect({ width, scrollWidth: Math.max(scrollWidth, width) }).toEqual({ width, scrollWidth: width });
      expect({ width, violations: await seriousViolations(page) }).toEqual({ width, violations: [] });
    }
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}/setup.png`, fullPage: true, mask: [page.locator('.secret'), qr] });
    }
    const key = (await page.locator('#totp-key').textContent())!.trim();
    await page.fill('#password', 'staff setup password for the qr test');
    await page.fill('#confirm', 'staff setup password for the qr test');
    await page.fill('#code', await generate({ secret: key }));
    await Promise.all([page.waitForURL(`${base}/sign-in`), page.click('button:has-text("Finish setup")')]);
  });
});
