import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { startBackOffice, type RunningApp } from '../support/apps.js';
import { createStaffUser, nextCode, type StaffPerson } from '../support/back-office.js';
import { openBrowser, seriousViolations, type Browser } from '../dashboard/browser.js';

/** Set BACK_OFFICE_SCREENSHOTS=docs/back-office to refresh the committed screenshots. */
const SCREENSHOTS = process.env.BACK_OFFICE_SCREENSHOTS;

/**
 * Staff in real Chromium: sign in by keyboard with the authenticator code, propose a new staff
 * account with a reason, see that the proposer is offered no approval, sign in as a second admin
 * and approve it (the one-time setup link is shown to the approver), then find both decisions in
 * the audit trail. axe-core checks every page.
 */
describe('staff back-office in Chromium', () => {
  let backOffice: RunningApp;
  let base: string;
  let db: DataSource;
  let browser: Browser;
  let page: Page;
  let first: StaffPerson;
  let second: StaffPerson;

  async function audit(name: string): Promise<void> {
    expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true, mask: [page.locator('.secret')] });
    }
  }

  async function signInAs(person: StaffPerson, path = '/'): Promise<void> {
    await page.goto(`${base}${path}`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await page.locator('#email').focus();
    await page.keyboard.type(person.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(person.password);
    await page.keyboard.press('Tab');
    await page.keyboard.type(await nextCode(person));
    await Promise.all([page.waitForURL(`${base}${path}`), page.keyboard.press('Enter')]);
  }

  async function signOut(): Promise<void> {
    await Promise.all([page.waitForURL(`${base}/sign-in`), page.click('button:has-text("Sign out")')]);
  }

  beforeAll(async () => {
    // Served on "localhost": Chromium treats it as a secure context, so the Secure __Host- cookies work over plain HTTP.
    backOffice = await startBackOffice({ listen: true });
    base = backOffice.url!.replace('127.0.0.1', 'localhost');
    db = backOffice.app.get(DataSource);
    first = await createStaffUser(backOffice.app, 'admin');
    second = await createStaffUser(backOffice.app, 'admin');
    browser = await openBrowser();
    page = browser.page;
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await backOffice?.close();
  });

  const newEmail = `browser-${Date.now()}@staff.example`;

  it('signs in with password and authenticator code by keyboard', async () => {
    await page.goto(`${base}/staff`);
    await audit('sign-in');
    await page.goto(base);
    await signInAs(first, '/staff');
    await expect(page.locator('h1').textContent()).resolves.toBe('Staff');
    const session = (await browser.context.cookies(base)).find((cookie) => cookie.name === '__Host-staff_session')!;
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax' });
    await audit('staff');
  });

  it('proposes a new account with a written reason; the proposer is offered no approval', async () => {
    await page.fill('#new-email', newEmail);
    await page.selectOption('#new-role', 'approver');
    await page.fill('#new-reason', 'Second approver for month-end payouts');
    await Promise.all([page.waitForURL(/\/proposals\/[0-9a-f-]{36}$/), page.click('button:has-text("Propose account")')]);
    await expect(page.locator('main').textContent()).resolves.toContain('You proposed this: another person must approve it.');
    await expect(page.locator('button:has-text("Approve")').count()).resolves.toBe(0);
    expect(await db.query(`SELECT 1 FROM staff_users WHERE email = $1`, [newEmail])).toHaveLength(0);
    await audit('proposal-own');
    await signOut();
  });

  it('a second admin finds it waiting, approves it, and alone sees the one-time setup link', async () => {
    await signInAs(second, '/proposals');
    await audit('proposals');
    await page.locator('tr', { hasText: `New staff account ${newEmail}` }).locator('a').first().click();
    await page.fill('#approve-note', 'Confirmed with the finance lead');
    await page.click('button:has-text("Approve")');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Approved and done.');
    const link = (await page.locator('#setup-link').textContent())!;
    expect(link).toMatch(/\/setup\?token=[A-Za-z0-9_-]{43}$/);
    await audit('proposal-approved');
    const [user] = await db.query(`SELECT role FROM staff_users WHERE email = $1`, [newEmail]);
    expect(user.role).toBe('approver');
  });

  it('shows both decisions in the audit trail: who, what, why and who approved', async () => {
    await page.goto(`${base}/audit`);
    const row = page.locator('tr', { hasText: 'staff.created' }).filter({ hasText: newEmail }).first();
    const text = (await row.textContent())!;
    expect(text).toContain(first.email);
    expect(text).toContain('Second approver for month-end payouts');
    expect(text).toContain(second.email);
    await audit('audit');
  });
});
